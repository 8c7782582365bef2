# Jupyter's settings for the Binder image, found through JUPYTER_CONFIG_PATH, which binder/start
# sets before every Jupyter start (a JupyterHub's home volume would hide a ~/.jupyter made at
# build time).
#
# Each front-end sets the server's default_url itself, over ServerApp.default_url, so each gets
# its own: whichever one starts (`jupyter lab`, or `jupyter notebook`, repo2docker's default
# command), `/` opens the tutorials. tests/test_binder_launch.py checks both.
c = get_config()  # noqa: F821 - defined by Jupyter when it reads this file

c.ServerApp.default_url = "/lab/tree/notebooks"
c.LabApp.default_url = "/lab/tree/notebooks"
c.JupyterNotebookApp.default_url = "/tree/notebooks"   # Notebook 7
c.NotebookApp.default_url = "/tree/notebooks"          # the classic Notebook (6)
# A new notebook (and one whose kernel is not installed) gets the edujax kernel.
c.MappingKernelManager.default_kernel_name = "edujax"
