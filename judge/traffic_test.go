package judge

import (
	"slices"
	"testing"

	"github.com/plantcheck/plantcheck/rules"
)

// TestCatalogCovered: every rule of the catalog is either judged from
// traffic or listed with the reason it cannot be, not both.
func TestCatalogCovered(t *testing.T) {
	for _, r := range rules.Catalog {
		judged := slices.Contains(FromTraffic, r.ID)
		_, why := NotFromTraffic[r.ID]
		if judged == why {
			t.Errorf("%s: judged %v, reason given %v; want exactly one", r.ID, judged, why)
		}
	}
	for _, id := range FromTraffic {
		if _, ok := rules.Lookup(id); !ok {
			t.Errorf("%s is judged but not in the catalog", id)
		}
	}
}
