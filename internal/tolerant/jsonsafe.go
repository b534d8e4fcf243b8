package tolerant

import (
	"fmt"
	"math"
)

// JSONSafe turns decoded state values into values encoding/json accepts:
// maps with non-string keys get string keys, NaN and infinities become text.
func JSONSafe(v any, depth int) any {
	return walkValues(v, depth, 128, false, jsonSafeNumber)
}

// jsonSafeNumber spells NaN and the infinities as text.
func jsonSafeNumber(v any) any {
	switch t := v.(type) {
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Sprint(t)
		}
	case float32:
		if math.IsNaN(float64(t)) || math.IsInf(float64(t), 0) {
			return fmt.Sprint(t)
		}
	}
	return v
}
