"""One build step pyproject.toml cannot say: ship the top-level ``widgets/`` folder (the ES
modules and CSS of the inline views, edujax.viz) inside the wheel, as ``edujax/_widgets``.

In a source checkout edujax.viz reads ``widgets/`` directly; an installed wheel has no
checkout around it, so the files travel inside the package. Everything else about the
package is in pyproject.toml.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithWidgets(build_py):
    def run(self) -> None:
        super().run()
        source = Path(__file__).resolve().parent / "widgets"
        target = Path(self.build_lib) / "edujax" / "_widgets"
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted(source.glob("*.js")) + sorted(source.glob("*.css")):
            shutil.copy2(path, target / path.name)


setup(cmdclass={"build_py": BuildPyWithWidgets})
