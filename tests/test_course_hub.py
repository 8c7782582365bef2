"""The course's JupyterHub (course/), started for real on localhost with a class of three.

The students sign up with their roster names and log in through the hub's forms, get their own
servers (as their own Unix users), run a tutorial's cells on the EduJAX kernel through the
kernel websocket, pull the tutorials by an nbgitpuller link (an edit of theirs survives the
teacher's update), receive an assignment, and the teacher collects and grades it into a CSV
that names them. Students cannot read each other's homes, and links they plant in their own
home do not let release or collect reach anything else.

The hub runs in a private mount namespace whose /etc/passwd and /etc/group are temporary copies
with the students (course/local_class.py): the machine's own /etc never changes. That needs
root, as a course server's hub does.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from course.hub_client import HubUser  # noqa: E402
from course.link import pull_link  # noqa: E402
from course.local_class import LocalClass, free_port  # noqa: E402

STUDENTS = ["kim", "lee", "park"]
PASSWORD = "tutorial-password-7"
PY = sys.executable
EXERCISE = REPO / "course-kit/exercises/01-grad-argnums"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the hub switches to the students' "
                                "uids and mounts /etc copies: it runs as root (as on a server)")


@pytest.fixture(scope="module")
def course():
    """The hub with three students logged in, each with a running server and an API token."""
    local = LocalClass(STUDENTS)
    try:
        url = local.start_hub()
        students = {}
        for name in STUDENTS:
            student = HubUser(url, name, PASSWORD)
            assert student.sign_up() == "success", f"{name} is on the roster: signed up at once"
            login = student.log_in()
            assert login.status_code == 302 and student.logged_in(), (name, login.status_code)
            student.new_token()
            students[name] = student
        for student in students.values():
            student.start_server()
        yield local, students
    finally:
        print(local.log()[-3000:])
        local.stop()


def run(student: HubUser, *sources: str) -> list:
    runs = student.run_cells(list(sources))
    assert all(r.status == "ok" for r in runs), [(r.source, r.error) for r in runs]
    return runs


def teacher(*args: str, **kwargs) -> subprocess.CompletedProcess:
    """A teacher's command, run as root from the repository (as on the course server)."""
    done = subprocess.run([PY, "-m", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=600, **kwargs)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_only_the_roster_logs_in(course):
    local, students = course
    wrong = HubUser(local.url, "kim", "not-kims-password")
    assert wrong.log_in().status_code != 302 and not wrong.logged_in()   # the form again
    stranger = HubUser(local.url, "mallory", PASSWORD)
    assert stranger.sign_up() == "info"     # "sent to the admin": not on the roster
    assert stranger.log_in().status_code != 302 and not stranger.logged_in()


def test_each_student_runs_as_themself_in_their_home(course):
    local, students = course
    for name, student in students.items():
        out = run(student, "import os, pwd; print(pwd.getpwuid(os.getuid()).pw_name, os.getcwd())")
        assert out[0].output.split() == [name, str(local.homes / name)]


def test_a_tutorial_runs_on_the_edujax_kernel(course):
    _, students = course
    tutorial = nbformat.read(REPO / "notebooks/en/01_accelerated_numpy.ipynb", as_version=4)
    first = [c.source for c in tutorial.cells if c.cell_type == "code"][:3]
    runs = run(students["lee"], *first, "%jaxpr jnp.sin(x * 2.0)")
    # What real JAX prints for the tutorial's first cells, and the EduJAX kernel's magic.
    assert runs[1].output == "[0 1 2 3 4 5 6 7 8 9]\n"
    assert runs[2].output.strip() == "Array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], dtype=int32)"
    assert "sin" in runs[3].output and "lambda" in runs[3].output


def test_students_cannot_read_each_others_homes(course):
    local, students = course
    secret = "kim's answers, not for others"
    run(students["kim"], f"open('notes.txt', 'w').write({secret!r})")
    kims_file = local.homes / "kim" / "notes.txt"
    out = run(students["lee"], "\n".join([
        "for attempt in (lambda: open(%r).read(), lambda: __import__('os').listdir(%r)):"
        % (str(kims_file), str(kims_file.parent)),
        "    try: print(attempt())",
        "    except PermissionError as e: print('refused', e.errno)"]))
    assert out[0].output.split("\n")[:2] == ["refused 13", "refused 13"]
    # Nor through the hub: lee's token does not open kim's server.
    answer = students["lee"].api("GET", "/user/kim/api/contents/notes.txt", allow_redirects=False)
    assert answer.status_code in (302, 403) and secret not in answer.text


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=Teacher", "-c",
                    "user.email=teacher@example.org", *args], check=True, capture_output=True)


@pytest.fixture
def git_server(tmp_path):
    """A folder served by `git daemon` on localhost, as a git host serves a public repository."""
    port = free_port()
    daemon = subprocess.Popen(["git", "daemon", "--listen=127.0.0.1", f"--port={port}",
                               "--export-all", f"--base-path={tmp_path}", "--reuseaddr",
                               str(tmp_path)], stdin=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield tmp_path, f"git://127.0.0.1:{port}"
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)


def publish(repo: Path, message: str) -> None:
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", message)


def test_content_link_pulls_and_keeps_the_students_edit(course, git_server):
    local, students = course
    served, address = git_server
    repo = served / "tutorials"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    tutorial = nbformat.read(REPO / "notebooks/en/01_accelerated_numpy.ipynb", as_version=4)
    nbformat.write(tutorial, repo / "01.ipynb")
    (repo / "README.md").write_text("Unit 1\n")
    publish(repo, "unit 1")
    url = f"{address}/tutorials"
    kim = students["kim"]

    # The link a teacher hands out sends a logged-in student to their own server's puller.
    link = pull_link(local.url, url, "main", "01.ipynb", target="tutorials")
    page = kim.session.get(link, timeout=120)
    assert page.status_code == 200 and "/user/kim/git-pull" in page.url
    kim.git_pull(url, "main", "tutorials")      # what that page's script then runs
    notebook = kim.server("GET", "api/contents/tutorials/01.ipynb").json()
    assert notebook["type"] == "notebook"

    # kim edits the first cell and saves, as JupyterLab does (a PUT of the whole notebook).
    content = notebook["content"]
    content["cells"][0]["source"] = "# kim's note: arange is like NumPy's"
    saved = kim.server("PUT", "api/contents/tutorials/01.ipynb",
                       json={"type": "notebook", "format": "json", "content": content})
    assert saved.status_code == 200, saved.text

    # The teacher publishes unit 2 and fixes the README; kim opens the link again.
    nbformat.write(tutorial, repo / "02.ipynb")
    (repo / "README.md").write_text("Units 1 and 2\n")
    publish(repo, "unit 2")
    kim.git_pull(url, "main", "tutorials")
    after = kim.server("GET", "api/contents/tutorials/01.ipynb").json()["content"]
    assert after["cells"][0]["source"] == "# kim's note: arange is like NumPy's"
    assert kim.server("GET", "api/contents/tutorials/02.ipynb").status_code == 200
    readme = kim.server("GET", "api/contents/tutorials/README.md",
                        params={"type": "file", "format": "text"}).json()["content"]
    assert readme == "Units 1 and 2\n"


def answer_with_solution(student: HubUser, assignment: str, solution: Path) -> None:
    """The student opens their released notebook and writes the answers (here, the reference
    solution's answer cells), then saves it through their server."""
    path = f"api/contents/assignments/{assignment}/{assignment}.ipynb"
    released = student.server("GET", path).json()["content"]
    answers = {c["metadata"].get("otter", {}).get("question", c["id"]): c["source"]
               for c in json.loads(solution.read_text())["cells"]}
    for cell in released["cells"]:
        cell["source"] = answers.get(cell["id"], cell["source"])
    saved = student.server("PUT", path, json={"type": "notebook", "format": "json",
                                              "content": released})
    assert saved.status_code == 200, saved.text


def test_release_collect_grade_names_the_students(course, tmp_path):
    local, students = course
    teacher("edujax.grading", "assign", str(EXERCISE), "--out", str(tmp_path / "dist"))
    assignment = tmp_path / "dist" / EXERCISE.name
    released = teacher("course.release", str(assignment), "--homes", str(local.homes))
    assert released.stdout.split("\n")[:3] == [f"{n}: released" for n in sorted(STUDENTS)]
    # Released files belong to their student; a second release keeps what they wrote.
    notebook = local.homes / "kim/assignments" / EXERCISE.name / f"{EXERCISE.name}.ipynb"
    assert notebook.stat().st_uid == local.uids["kim"]

    answer_with_solution(students["kim"], EXERCISE.name, assignment / "solution.ipynb")
    again = teacher("course.release", str(assignment), "--homes", str(local.homes))
    assert "kim: kept as it was" in again.stdout

    submissions = tmp_path / "submissions"
    collected = teacher("edujax.grading", "collect", EXERCISE.name, "--homes",
                        str(local.homes), "--out", str(submissions))
    assert f"collected 3 submission(s) of {EXERCISE.name}" in collected.stdout
    teacher("edujax.grading", "grade", str(submissions), "--assignment", str(assignment),
            "--csv", str(tmp_path / "grades.csv"))
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = {Path(r["submission"]).stem: r for r in csv.DictReader(f)}
    assert sorted(rows) == sorted(STUDENTS)
    assert float(rows["kim"]["total"]) == float(rows["kim"]["possible"]) > 0
    assert float(rows["lee"]["total"]) == 0 == float(rows["park"]["total"])


def test_planted_links_reach_nothing(course, tmp_path):
    """park links their 'submission' to kim's home, and an assignment folder to a folder of
    root's: collect gets nothing of kim's, release writes nothing into root's folder."""
    local, students = course
    run(students["kim"], "import os; os.makedirs('assignments/quiz', exist_ok=True); "
                         "open('assignments/quiz/quiz.ipynb', 'w').write('{\"kim\": 1}')")
    roots = local.root / "roots-folder"
    roots.mkdir(mode=0o755)
    run(students["park"], "import os; os.makedirs('assignments', exist_ok=True); "
                          f"os.symlink({str(local.homes / 'kim/assignments/quiz')!r}, "
                          "'assignments/quiz')")
    collected = teacher("edujax.grading", "collect", "quiz", "--homes", str(local.homes),
                        "--out", str(tmp_path / "quiz"))
    assert sorted(p.name for p in (tmp_path / "quiz").iterdir()) == ["kim.ipynb"]
    assert "park: nothing collected" in collected.stdout

    other = REPO / "course-kit/exercises/02-value-and-grad-aux"
    teacher("edujax.grading", "assign", str(other), "--out", str(tmp_path / "dist"))
    run(students["park"], f"import os; os.symlink({str(roots)!r}, 'assignments/{other.name}')")
    released = teacher("course.release", str(tmp_path / "dist" / other.name),
                       "--homes", str(local.homes))
    assert list(roots.iterdir()) == []
    assert "park: kept as it was" in released.stdout and "kim: released" in released.stdout


def test_accounts_creates_private_homes_from_the_roster(tmp_path):
    """`python -m course.accounts`, the teacher's way to make the students' Unix users, run in
    a private mount namespace over a copy of /etc (useradd writes there, not to this machine):
    each roster member becomes a user whose home only they can enter; running it again
    changes nothing."""
    etc, homes = tmp_path / "etc", tmp_path / "home"
    shutil.copytree("/etc", etc, symlinks=True, ignore_dangling_symlinks=True,
                    ignore=shutil.ignore_patterns("ssl", "alternatives"))
    homes.mkdir()
    roster = tmp_path / "roster.csv"
    roster.write_text("username,role\nteacher,teacher\nkim,student\nlee,student\n")
    inside = (f"mount --bind {etc} /etc && "
              f"{PY} -m course.accounts {roster} --homes {homes} && "
              f"{PY} -m course.accounts {roster} --homes {homes} && "
              "getent passwd kim lee teacher | cut -d: -f1,6")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "--",
                           "sh", "-c", inside], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("useradd") == 3 and "kim: exists" in done.stdout
    assert done.stdout.strip().split("\n")[-3:] == [f"{n}:{homes / n}" for n in
                                                    ("kim", "lee", "teacher")]
    for name in ("kim", "lee"):
        info = (homes / name).stat()
        assert info.st_mode & 0o777 == 0o700 and info.st_uid != 0
    assert "kim:" not in Path("/etc/passwd").read_text()   # the machine's own: untouched


def test_an_idle_server_is_stopped_and_the_work_stays():
    """jupyterhub-idle-culler, as the hub runs it: a server nobody uses for the idle time is
    stopped (EDUJAX_COURSE_IDLE, here 20 s instead of an hour); the student's files stay."""
    local = LocalClass(["choi"], idle_seconds=20)
    try:
        student = HubUser(local.start_hub(), "choi", PASSWORD)
        assert student.sign_up() == "success" and student.log_in().status_code == 302
        student.new_token()
        student.start_server()
        run(student, "open('work.txt', 'w').write('my notes')")
        deadline = time.monotonic() + 180
        while student.api("GET", "users/choi").json()["servers"]:
            assert time.monotonic() < deadline, "the idle server is still running"
            time.sleep(2)
        assert (local.homes / "choi/work.txt").read_text() == "my notes"
        assert "Culling server choi" in (local.root / "hub.log").read_text()   # not a crash
    finally:
        local.stop()
