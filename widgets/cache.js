// The compile cache view: one row per compiled signature, redrawn whenever Python sends a
// new state (it re-reads the cache twice a second). A row whose hits just changed flashes.
import { h, frame } from "./util.js";

const COLUMNS = ["signature", "statics", "backend", "tier", "hits", "trace", "compile"];

function ms(x) {
  return x >= 0.1 || x === 0 ? `${x.toFixed(1)} ms` : `${Math.round(x * 1000)} μs`;
}

function count(n, word) {
  return `${n} ${word}${n === 1 ? "" : word.endsWith("s") ? "es" : "s"}`;
}

function draw(box, state, previous) {
  box.replaceChildren();
  box.appendChild(h("div", "edujax-title",
    `jit(${state.name}): ${count(state.hits, "hit")}, ${count(state.misses, "miss")}, ` +
    `${state.rows.length}/${state.maxsize} entries`));
  const table = h("table");
  const head = h("tr");
  for (const c of COLUMNS) head.appendChild(h("th", "", c));
  table.appendChild(h("thead")).appendChild(head);
  const body = table.appendChild(h("tbody"));
  state.rows.forEach((r, i) => {
    const tr = h("tr");
    const before = previous?.rows?.[i];
    if (before && (before.hits !== r.hits || before.tier !== r.tier)) {
      tr.className = "edujax-new";  // a short flash: this row just changed
      setTimeout(() => tr.classList.remove("edujax-new"), 1500);
    }
    for (const v of [r.signature, r.statics, r.backend, r.tier, r.hits, ms(r.trace_ms),
                     ms(r.compile_ms)]) tr.appendChild(h("td", "", String(v)));
    body.appendChild(tr);
  });
  box.appendChild(table);
  box.appendChild(h("div", "edujax-subtitle", "Why each call missed"));
  const list = h("ol");
  for (const reason of state.reasons) list.appendChild(h("li", "", reason));
  box.appendChild(list);
}

function render({ model, el }) {
  const box = frame(el, "cache");
  let previous = null;
  const redraw = () => { const s = model.get("state"); draw(box, s, previous); previous = s; };
  redraw();
  model.on("change:state", redraw);
  return () => model.off("change:state", redraw);
}

export default { render };
