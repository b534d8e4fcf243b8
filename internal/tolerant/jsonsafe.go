package tolerant

import (
	"fmt"
	"math"
)

// JSONSafe turns decoded state values into values encoding/json accepts:
// maps with non-string keys get string keys, NaN and infinities become text.
func JSONSafe(v any, depth int) any {
	if depth > 128 {
		return nil
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = JSONSafe(x, depth+1)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = JSONSafe(x, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = JSONSafe(x, depth+1)
		}
		return out
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
