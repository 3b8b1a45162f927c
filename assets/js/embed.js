// Embedding support (see tools/build docs); filled in by the deploy work.
