"""The course's JupyterHub on one server (see course/README.md); its helpers run as
``python -m course.<name>`` from the repository root."""
