"""Fleets: judge the snapshots of many nodes centrally with the doctor's rules.

Collection runs through the engine a site already has (Slurm, Kubernetes, ssh,
or files made by ``envcheck detect --json -o``); every collector writes JSON
lines of fleet records (``records``). ``report`` groups nodes by stack, runs the
doctor once per distinct snapshot and resolves the one environment that runs on
every node. Nothing here is an agent or a daemon.
"""
