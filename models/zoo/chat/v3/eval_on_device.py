#!/usr/bin/env python3
"""v2's held-out perplexity (../v2/eval_perplexity.py, unchanged, same arguments) with CUDA as
PyTorch's default device: on the GPU machine it takes seconds, where the two shared cores here
take most of an hour for the 28 M model. Without CUDA (or torch < 2.0) it runs on the CPU."""
import os, runpy, sys

import torch

if torch.cuda.is_available() and hasattr(torch, "set_default_device"):
    torch.set_default_device("cuda")
script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "v2", "eval_perplexity.py")
sys.argv = [script] + sys.argv[1:]
runpy.run_path(script, run_name="__main__")
