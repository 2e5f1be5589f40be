// Polling a flag a bounded number of times (while, for and loop forms), then moving on.
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  var seen = 0u;
  for (var tries = 0u; tries < 64u; tries++) {
    if (atomicLoad(&flag) == 1u) { seen = 1u; break; }
  }
  var polls = 0u;
  while (atomicLoad(&flag) == 0u && polls < 16u) {
    polls += 1u;
  }
  var n = 0u;
  loop {
    if (atomicLoad(&flag) != 0u) { break; }
    n = n + 1u;
    if (n == 8u) { break; }
  }
  out[wid.x] = seen + polls + n;
}
