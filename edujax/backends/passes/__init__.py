"""Passes over a jaxpr that the CPU and CUDA backends share, in the order they run.

``inline.py`` pastes in the calls (nested jits, custom_jvp/custom_vjp bodies) and lowers
random keys to uint32 words (``keys.py``); ``fusion.py`` cuts the equations into steps;
``lowering.py`` is the table of how one equation becomes one line of scalar code.
"""
