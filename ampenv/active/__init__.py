"""Everything that runs torch in a child process: the import probe, the AMP self-test,
the smoke training and the collective test. The parent sides here import no torch."""
