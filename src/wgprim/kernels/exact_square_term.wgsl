// The term of an exact sum of squares (kernels/exact_sum.wgsl, for var and std): the
// element's square, m^2 * 2^(2p) units^2, exactly (m^2 has up to 106 bits), as WINDOW
// 16-bit digits from digit `low` (shifted left by 2p % 16 to a digit boundary).

const WINDOW: u32 = 9u;
const DIGITS: u32 = SQUARE_DIGITS;

struct Term {
  negative: bool,
  low: u32,
  d: array<u32, WINDOW>,
}

fn term(s: Split) -> Term {
  var t: Term;
  t.negative = false;
  // Column sums of the 16x16-bit products' halves: each below 8 * 2^16, no overflow.
  var col: array<u32, 8>;
  for (var i = 0u; i < 4u; i++) {
    for (var j = 0u; j < 4u; j++) {
      let product = s.m[i] * s.m[j];
      col[i + j] += product & 0xffffu;
      col[i + j + 1u] += product >> 16u;
    }
  }
  // Carries: the 16-bit digits of m^2 (below 2^106, so nothing is left above digit 7).
  var carry = 0u;
  // unroll
  for (var k = 0u; k < 8u; k++) {
    let v = col[k] + carry;
    col[k] = v & 0xffffu;
    carry = v >> 16u;
  }
  let q = 2u * s.p;
  t.low = q / 16u;
  let shift = q % 16u;
  var spill = 0u;
  // unroll
  for (var k = 0u; k < 8u; k++) {
    let v = col[k] << shift;
    t.d[k] = (v & 0xffffu) | spill;
    spill = v >> 16u;
  }
  t.d[8] = spill;
  return t;
}
