"""rocsim's Hydra configs, shipped as package data of ``rocsim.configs`` (one folder per
config group, ``config.yaml`` at the root); located through :mod:`importlib.resources`."""
