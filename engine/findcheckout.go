package engine

import (
	"fmt"
	"os"
	"path/filepath"
)

// FindCheckout returns the checkout holding dir: the nearest of dir and
// its parents with a manifest (ManifestName), as git finds its work tree.
// The error wraps ErrNotFound when there is none.
func FindCheckout(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		if fi, err := os.Lstat(filepath.Join(d, ManifestName)); err == nil && fi.Mode().IsRegular() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%w: no tv checkout (%s) in %s or any folder above it; give the checkout's folder", ErrNotFound, ManifestName, abs)
		}
		d = parent
	}
}
