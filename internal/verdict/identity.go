package verdict

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/spec"
)

// Stamp records what judged: plantcheck's version, the spec's title,
// version and digest, and the features' digest and scenario count.
func (v *Verdict) Stamp(specTitle, specVersion string) {
	v.Schema = SchemaID
	v.Plantcheck.Version = buildinfo.Version()
	v.Spec.Title, v.Spec.Version, v.Spec.SHA256 = specTitle, specVersion, digest(spec.Document())
	v.Features.SHA256 = featuresDigest()
	if scs, err := features.Scenarios(); err == nil {
		v.Features.Scenarios = len(scs)
	}
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// featuresDigest hashes the feature files, names and contents, in name
// order.
func featuresDigest() string {
	h := sha256.New()
	names, _ := fs.Glob(features.FS, "*.feature")
	slices.Sort(names)
	for _, n := range names {
		b, _ := fs.ReadFile(features.FS, n)
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
