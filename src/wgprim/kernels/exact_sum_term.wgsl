// The term of an exact sum (kernels/exact_sum.wgsl): the element itself, m * 2^p units,
// as WINDOW 16-bit digits from digit `low` (m shifted left by p % 16 to a digit boundary).

const WINDOW: u32 = 5u;
const DIGITS: u32 = SUM_DIGITS;

struct Term {
  negative: bool,
  low: u32,
  d: array<u32, WINDOW>,
}

fn term(s: Split) -> Term {
  var t: Term;
  t.negative = s.negative;
  t.low = s.p / 16u;
  let shift = s.p % 16u;
  var spill = 0u;  // the bits of the digit below that the shift carried past 16
  // unroll
  for (var k = 0u; k < 4u; k++) {
    let v = s.m[k] << shift;  // below 2^31: its low 16 bits stay, the rest spill up
    t.d[k] = (v & 0xffffu) | spill;
    spill = v >> 16u;
  }
  t.d[4] = spill;
  return t;
}
