package tvcmd

// testFull is what in-process runs of the tests link: every extension,
// as in tv-full (set by full_test.go, an external test file, since
// mcpcmd imports this package). The lean binary's hand-off to tv-full is
// tested through the built binaries (tvBin).
var testFull Extensions

// SetTestFull sets the extensions of in-process test runs.
func SetTestFull(ext Extensions) { testFull = ext }
