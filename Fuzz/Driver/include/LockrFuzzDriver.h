// Nothing to import: the driver only gives the fuzzing program its entry point.
