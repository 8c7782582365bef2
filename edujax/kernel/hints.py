"""The short "what happened / why / fix" box the kernel shows under a JAX error.

JAX's error messages are precise but written for people who already know what a
tracer is. A learner who meets ``TracerBoolConversionError`` for the first time needs
three more sentences: what happened in plain words, why tracing causes it, and the
usual fix, plus where the tutorials explain it. Each ``Hint`` below is those
sentences for one kind of error; ``hint_for(error)`` picks the one that applies. Each
sentence is written in English and Korean (``language.py`` picks the notebook's).
"""
from __future__ import annotations

import html
from typing import Callable, NamedTuple

from edujax import errors
from edujax.language import Text, language
from edujax.random import KeyReuseWarning

# Where the tutorials teach each topic (paths relative to the repository root); each is in
# notebooks/en/ and, with the same name, in notebooks/ko/.
JIT_TUTORIAL = "notebooks/en/05_jit_and_jaxprs.md"
GOTCHAS_TUTORIAL = "notebooks/en/04_gotchas.md"
GRAD_TUTORIAL = "notebooks/en/03_jax101.md"
RANDOM_TUTORIAL = "notebooks/en/02_quickstart.md"


LABELS = {
    "title": Text("edujax hint", "edujax 도움말"),
    "what": Text("What happened", "무슨 일인가"),
    "why": Text("Why", "왜"),
    "fix": Text("Fix", "고치는 법"),
    "tutorial": Text("Tutorial", "튜토리얼"),
}


def _tutorial_path(path: str) -> str:
    """The tutorial in the classroom's language (hints name the English path)."""
    return path.replace("/en/", "/ko/") if language() == "ko" else path


class Hint(NamedTuple):
    title: Text
    what: Text
    why: Text
    fix: Text
    tutorial: str

    def rows(self) -> list[tuple[str, str]]:
        """(label, sentence) pairs in the classroom's language."""
        return [(str(LABELS["what"]), str(self.what)), (str(LABELS["why"]), str(self.why)),
                (str(LABELS["fix"]), str(self.fix)),
                (str(LABELS["tutorial"]), _tutorial_path(self.tutorial))]

    def text(self) -> str:
        lines = [f"{LABELS['title']}: {self.title}"]
        lines += [f"  {label}: {body}" for label, body in self.rows()]
        return "\n".join(lines)

    def html(self) -> str:
        rows = "".join(
            f'<div style="font-weight:600;color:#8a5a12">{html.escape(label)}</div>'
            f"<div>{html.escape(body)}</div>" for label, body in self.rows())
        return (
            '<div class="edujax-hint" style="border-left:4px solid #e8a33d;background:#fff8ec;'
            'color:#3b2f1e;padding:8px 12px;margin:6px 0;border-radius:4px;'
            'font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:13px;'
            f'line-height:1.45" lang="{language()}">'
            f'<div style="font-weight:700;margin-bottom:6px">{html.escape(str(LABELS["title"]))}: '
            f"{html.escape(str(self.title))}</div>"
            '<div style="display:grid;grid-template-columns:max-content 1fr;'
            f'column-gap:12px;row-gap:3px">{rows}</div></div>')

    def mimebundle(self) -> dict[str, str]:
        return {"text/plain": self.text(), "text/html": self.html()}


TRACER_WHY_EN = ("Inside jit, make_jaxpr or vmap your function runs on tracers: stand-ins "
                 "for every possible value of that shape and dtype. Python code that needs "
                 "one concrete value cannot get it while tracing.")
TRACER_WHY_KO = ("jit, make_jaxpr, vmap 안에서 함수는 트레이서(tracer)로 실행됩니다. 트레이서는 그 "
                 "모양과 dtype의 모든 값을 대신하는 대역이라, 구체적인 값 하나가 필요한 파이썬 "
                 "코드는 추적하는 동안 그 값을 얻을 수 없습니다.")
TRACER_WHY = Text(TRACER_WHY_EN, TRACER_WHY_KO)

BOOL = Hint(
    Text("Python if / while / and / or on a traced value",
         "추적 중인 값에 파이썬 if / while / and / or를 썼습니다"),
    Text("Python asked a traced array whether it is True or False.",
         "파이썬이 추적 중인 배열에게 참인지 거짓인지 물었습니다."),
    TRACER_WHY,
    Text("Branch with jnp.where(cond, a, b) or lax.cond(pred, true_fn, false_fn, x); or, if the "
         "value is a setting that rarely changes, mark it static: "
         "jax.jit(f, static_argnums=...).",
         "jnp.where(cond, a, b)나 lax.cond(pred, true_fn, false_fn, x)로 분기하세요. 그 값이 "
         "거의 바뀌지 않는 설정이라면 정적 인자로 표시하세요: jax.jit(f, static_argnums=...)."),
    JIT_TUTORIAL)

CONCRETE = Hint(
    Text("a concrete value was needed while tracing", "추적하는 동안 구체적인 값이 필요했습니다"),
    Text("Some code needed an actual number (for a shape, a range, a Python branch) but got "
         "a tracer.",
         "어떤 코드가 실제 숫자(모양, range, 파이썬 분기에 쓸)를 필요로 했는데 트레이서를 "
         "받았습니다."),
    Text(TRACER_WHY_EN + " Shapes in particular must be known before the program runs.",
         TRACER_WHY_KO + " 특히 모양은 프로그램이 실행되기 전에 정해져 있어야 합니다."),
    Text("Pass the value as a static argument (static_argnums/static_argnames), or compute it "
         "with jnp/lax functions that accept traced values.",
         "그 값을 정적 인자(static_argnums/static_argnames)로 넘기거나, 추적 중인 값을 받는 "
         "jnp/lax 함수로 계산하세요."),
    JIT_TUTORIAL)

INTEGER = Hint(
    Text("a traced value used as a Python integer", "추적 중인 값을 파이썬 정수로 썼습니다"),
    Text("int(), range() or list indexing was called on a traced array.",
         "추적 중인 배열에 int(), range(), 리스트 인덱싱을 썼습니다."),
    TRACER_WHY,
    Text("Loop with lax.fori_loop, index arrays with jnp indexing or lax.dynamic_slice, or make "
         "the integer a static argument.",
         "반복은 lax.fori_loop로, 배열 인덱싱은 jnp 인덱싱이나 lax.dynamic_slice로 하거나, 그 "
         "정수를 정적 인자로 만드세요."),
    JIT_TUTORIAL)

NUMPY = Hint(
    Text("NumPy was handed a traced value", "NumPy에 추적 중인 값을 넘겼습니다"),
    Text("A NumPy function (np.*) tried to turn a tracer into a NumPy array.",
         "NumPy 함수(np.*)가 트레이서를 NumPy 배열로 바꾸려 했습니다."),
    Text("NumPy computes right away on real numbers; a tracer has none. Only jax.numpy (jnp) "
         "functions know how to record operations on tracers.",
         "NumPy는 실제 숫자로 바로 계산하는데, 트레이서에는 숫자가 없습니다. 트레이서에 대한 "
         "연산을 기록할 줄 아는 것은 jax.numpy(jnp) 함수뿐입니다."),
    Text("Use jnp.* instead of np.* inside functions you jit, grad or vmap.",
         "jit, grad, vmap을 적용하는 함수 안에서는 np.* 대신 jnp.*를 쓰세요."),
    GOTCHAS_TUTORIAL)

BOOL_INDEX = Hint(
    Text("boolean mask with a traced value", "추적 중인 값으로 만든 불리언 마스크"),
    Text("x[mask] was used with a mask that depends on the input.",
         "입력에 따라 달라지는 마스크로 x[mask]를 썼습니다."),
    Text("The result's shape would depend on how many entries are True, and under jit every "
         "shape must be known before the values are.",
         "결과의 모양이 True인 항목의 개수에 따라 달라지는데, jit 아래에서는 모든 모양이 값보다 "
         "먼저 정해져 있어야 합니다."),
    Text("Keep the shape fixed: jnp.where(mask, x, 0), or jnp.nonzero(mask, size=N).",
         "모양을 고정하세요: jnp.where(mask, x, 0) 또는 jnp.nonzero(mask, size=N)."),
    GOTCHAS_TUTORIAL)

LEAKED = Hint(
    Text("a tracer escaped its transformation", "트레이서가 변환 밖으로 새어 나갔습니다"),
    Text("A traced value was kept (in a global, a list, an attribute) and used after the jit "
         "or grad that made it had finished.",
         "추적 중인 값을 (전역 변수, 리스트, 속성에) 보관했다가, 그것을 만든 jit이나 grad가 "
         "끝난 뒤에 썼습니다."),
    Text("Tracers only mean something while their transformation is running.",
         "트레이서는 자신의 변환이 실행되는 동안에만 의미가 있습니다."),
    Text("Return values from your function instead of storing them outside it (functions "
         "under jit should be pure).",
         "값을 함수 밖에 보관하지 말고 함수에서 반환하세요(jit 아래의 함수는 순수 함수여야 "
         "합니다)."),
    GOTCHAS_TUTORIAL)

SCALAR_GRAD = Hint(
    Text("grad of a function that does not return a scalar",
         "스칼라를 반환하지 않는 함수의 grad"),
    Text("jax.grad was applied to a function whose output is an array, not one number.",
         "출력이 숫자 하나가 아니라 배열인 함수에 jax.grad를 적용했습니다."),
    Text("A gradient is the derivative of ONE number with respect to the inputs; for an "
         "array output there is one gradient per element (a Jacobian).",
         "기울기는 숫자 하나를 입력으로 미분한 것입니다. 출력이 배열이면 원소마다 기울기가 "
         "하나씩 있습니다(야코비안)."),
    Text("Reduce the output (jnp.sum, jnp.mean) to the loss you care about, or use "
         "jax.jacrev / jax.vjp for a vector output.",
         "출력을 관심 있는 손실 하나로 줄이거나(jnp.sum, jnp.mean), 벡터 출력에는 "
         "jax.jacrev / jax.vjp를 쓰세요."),
    GRAD_TUTORIAL)

IMMUTABLE = Hint(
    Text("JAX arrays cannot be changed in place", "JAX 배열은 제자리에서 바꿀 수 없습니다"),
    Text("x[i] = v was tried on a JAX array.", "JAX 배열에 x[i] = v를 시도했습니다."),
    Text("JAX arrays are immutable, so that transformed programs stay pure functions.",
         "변환된 프로그램이 순수 함수로 남도록 JAX 배열은 바꿀 수 없게 되어 있습니다."),
    Text("Write y = x.at[i].set(v) (also .add, .mul, .min, .max): it returns an updated copy.",
         "y = x.at[i].set(v)라고 쓰세요(.add, .mul, .min, .max도 있습니다). 바뀐 복사본을 "
         "돌려줍니다."),
    GOTCHAS_TUTORIAL)

KEY_REUSE = Hint(
    Text("a PRNG key was used twice", "PRNG 키를 두 번 썼습니다"),
    Text("The same key was handed to two random functions, so both got the same 'random' "
         "bits.",
         "같은 키를 두 난수 함수에 넘겨서, 둘 다 같은 '무작위' 비트를 받았습니다."),
    Text("JAX's random numbers are a pure function of the key: same key, same numbers.",
         "JAX의 난수는 키의 순수 함수입니다. 키가 같으면 숫자도 같습니다."),
    Text("Split before each use: key, subkey = jax.random.split(key), then use subkey once.",
         "쓸 때마다 키를 먼저 나누세요: key, subkey = jax.random.split(key) 다음 subkey를 한 번만 "
         "쓰세요."),
    RANDOM_TUTORIAL)


NAN_FOUND = Hint(
    Text("jax_debug_nans found the operation that made a NaN",
         "jax_debug_nans가 NaN을 만든 연산을 찾았습니다"),
    Text("With jax_debug_nans (or jax_debug_infs) on, an operation's output held a NaN (or an "
         "inf), and the error names that operation.",
         "jax_debug_nans(또는 jax_debug_infs)가 켜진 상태에서 어떤 연산의 출력에 NaN(또는 "
         "inf)이 들어 있었고, 오류가 그 연산의 이름을 알려 줍니다."),
    Text("log of a negative number, sqrt of a negative number, 0/0 and inf - inf give NaN; "
         "exp of a large number and division by 0 give inf.",
         "음수의 log, 음수의 sqrt, 0/0, inf - inf는 NaN이 되고, 큰 수의 exp와 0으로 나누기는 "
         "inf가 됩니다."),
    Text("Look at the inputs of the named operation: clip them to its domain, or mask them "
         "with jnp.where before the operation (not after it).",
         "이름이 나온 연산의 입력을 살펴보세요. 정의역 안으로 잘라 내거나(clip), 연산 "
         "뒤가 아니라 앞에서 jnp.where로 가리세요."),
    GOTCHAS_TUTORIAL)

RANK_PROMOTION = Hint(
    Text("arrays of different ranks were broadcast together",
         "차원 수가 다른 배열끼리 브로드캐스트했습니다"),
    Text("jax_numpy_rank_promotion is 'raise', and an operation combined arrays of different "
         "ranks, e.g. shapes (3,) and (2, 3).",
         "jax_numpy_rank_promotion이 'raise'인데, 어떤 연산이 차원 수가 다른 배열(예: 모양 "
         "(3,)과 (2, 3))을 함께 썼습니다."),
    Text("NumPy would silently add leading dimensions of size 1; this setting refuses that, "
         "because it often hides a bug.",
         "NumPy라면 크기 1인 앞쪽 차원을 조용히 붙이지만, 그것이 버그를 숨기는 일이 많아서 이 "
         "설정은 거부합니다."),
    Text("Make the ranks equal on purpose: x[None, :] or x.reshape(1, 3), or jnp.expand_dims.",
         "차원 수를 일부러 맞추세요: x[None, :], x.reshape(1, 3), jnp.expand_dims."),
    GOTCHAS_TUTORIAL)

STRICT_PROMOTION = Hint(
    Text("two different dtypes met under strict type promotion",
         "엄격한 타입 승격에서 서로 다른 dtype이 만났습니다"),
    Text("jax_numpy_dtype_promotion is 'strict', and an operation combined arrays of two "
         "different dtypes (say int32 and float32).",
         "jax_numpy_dtype_promotion이 'strict'인데, 어떤 연산이 서로 다른 dtype(예: int32와 "
         "float32)의 배열을 함께 썼습니다."),
    Text("Strict promotion never picks a common type for you; only Python scalars adapt.",
         "엄격한 승격은 공통 타입을 대신 골라 주지 않습니다. 파이썬 스칼라만 맞춰 줍니다."),
    Text("Cast one side explicitly: x.astype(jnp.float32).",
         "한쪽을 직접 변환하세요: x.astype(jnp.float32)."),
    GOTCHAS_TUTORIAL)


# The one-line "Hint: ..." that edujax's own error messages end with (errors.py, autodiff.py)
# is written in English down in the core, which knows nothing of notebooks; the kernel shows
# it in Korean in a Korean notebook (errors.py in this folder: ``localize``). A test raises
# each error and checks its English line is found here.
MESSAGE_HINTS = [
    Text("Hint: use lax.cond or jnp.where instead of a Python if on a traced value, or mark "
         "the argument static (static_argnums/static_argnames).",
         "도움말: 추적 중인 값에 파이썬 if를 쓰는 대신 lax.cond나 jnp.where를 쓰거나, 그 인자를 "
         "정적 인자로 표시하세요(static_argnums/static_argnames)."),
    Text("Hint: mark the argument static (static_argnums/static_argnames), or use jnp/lax "
         "functions that accept traced values.",
         "도움말: 그 인자를 정적 인자로 표시하거나(static_argnums/static_argnames), 추적 중인 "
         "값을 받는 jnp/lax 함수를 쓰세요."),
    Text("Hint: index with a static value, or use lax.dynamic_slice / jnp indexing.",
         "도움말: 정적인 값으로 인덱싱하거나 lax.dynamic_slice / jnp 인덱싱을 쓰세요."),
    Text("Hint: use jax.numpy (jnp) instead of numpy (np) inside transformed functions.",
         "도움말: 변환하는 함수 안에서는 numpy(np) 대신 jax.numpy(jnp)를 쓰세요."),
    Text("Hint: use jnp.where(mask, x, 0) to keep the shape static, or pass size= to "
         "jnp.nonzero.",
         "도움말: 모양을 고정하려면 jnp.where(mask, x, 0)를 쓰거나 jnp.nonzero에 size=를 "
         "넘기세요."),
    Text("Hint: reduce the output to a scalar (e.g. with jnp.sum), or use jax.vjp / "
         "jax.jacrev.",
         "도움말: 출력을 스칼라 하나로 줄이거나(예: jnp.sum), jax.vjp / jax.jacrev를 쓰세요."),
    Text("Hint: pass a float, e.g. 3.0 instead of 3.",
         "도움말: 실수를 넘기세요. 예: 3 대신 3.0."),
]


def localized_message(message: str) -> str:
    """``message`` with its English "Hint: ..." line in the classroom's language."""
    if language() == "en":
        return message
    for hint in MESSAGE_HINTS:
        message = message.replace(hint.en, hint.ko)
    return message


def _message(error: BaseException) -> str:
    return str(error).split("\n", 1)[0]


# (test, hint): the first test that matches picks the hint. Order matters: the more
# specific exception classes come before the classes they derive from.
RULES: list[tuple[Callable[[BaseException], bool], Hint]] = [
    (lambda e: isinstance(e, errors.TracerBoolConversionError), BOOL),
    (lambda e: isinstance(e, errors.ConcretizationTypeError), CONCRETE),
    # jnp.zeros(n) with a traced n: JAX (and edujax) say it with a TypeError naming the tracer.
    (lambda e: isinstance(e, TypeError) and _message(e).startswith(
        "Shapes must be 1D sequences of concrete values") and "Tracer(" in _message(e),
     CONCRETE),
    (lambda e: isinstance(e, errors.TracerIntegerConversionError), INTEGER),
    (lambda e: isinstance(e, errors.TracerArrayConversionError), NUMPY),
    (lambda e: isinstance(e, errors.NonConcreteBooleanIndexError), BOOL_INDEX),
    (lambda e: isinstance(e, errors.UnexpectedTracerError), LEAKED),
    (lambda e: isinstance(e, TypeError)
     and _message(e).startswith("Gradient only defined for scalar-output functions"),
     SCALAR_GRAD),
    (lambda e: isinstance(e, TypeError) and "item assignment" in _message(e), IMMUTABLE),
    (lambda e: isinstance(e, KeyReuseWarning), KEY_REUSE),
    (lambda e: isinstance(e, FloatingPointError)
     and _message(e).startswith("invalid value ("), NAN_FOUND),
    (lambda e: isinstance(e, ValueError)
     and "jax_numpy_rank_promotion='raise'" in _message(e), RANK_PROMOTION),
    (lambda e: isinstance(e, ValueError)
     and "jax_numpy_dtype_promotion=strict" in _message(e), STRICT_PROMOTION),
]


def hint_for(error: BaseException) -> Hint | None:
    """The hint for this error or warning, or None when there is nothing to add."""
    for test, hint in RULES:
        if test(error):
            return hint
    return None
