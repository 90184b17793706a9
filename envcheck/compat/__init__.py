"""One compatibility judge: does a framework build run on a target, and why.

``candidate`` turns matrix rows, installed frameworks and bare versions into
candidates; ``judge`` decides each (``judge``, ``judge_set``) and ranks them
(``rank_key``); ``target`` describes the machine with three-valued facts. Every
command consumes these verdicts and only formats them.
"""
