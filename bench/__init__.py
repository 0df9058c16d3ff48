"""Performance benchmarks of the pipeline, exports and pages: `python -m bench`.

Every figure is a ratio of two timings taken in the same run on the same machine, so it holds
on a busy machine; see docs/performance.md.
"""
