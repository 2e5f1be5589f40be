// What split() (kernels/exact_f64.wgsl, exact_f32.wgsl) returns for one element, and what
// a term file (exact_sum_term.wgsl, exact_square_term.wgsl) makes of it: the digits the
// element adds to the accumulator of kernels/exact_sum.wgsl. Order of the files: this one,
// a format, a term, exact_sum.wgsl.

const FINITE: u32 = 0u;
const POS_INF: u32 = 1u;
const NEG_INF: u32 = 2u;
const NOT_A_NUMBER: u32 = 3u;

struct Split {
  kind: u32,        // FINITE, POS_INF, NEG_INF or NOT_A_NUMBER
  negative: bool,   // the sign bit
  p: u32,           // the value is m * 2^p units (units: 2^-1074 for float64, 2^-149 for float32)
  m: vec4<u32>,     // m as four 16-bit digits, lowest first
}
