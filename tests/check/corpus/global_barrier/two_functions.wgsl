// The write and the gather are in different helpers around the barrier.
@group(0) @binding(0) var<storage, read_write> maxima: array<u32>;
@group(0) @binding(1) var<storage, read_write> answer: u32;

fn write_mine(w: u32, v: u32) {
  maxima[w] = v;
}

fn gather(n: u32) -> u32 {
  var m = 0u;
  for (var i = 0u; i < n; i++) { m = max(m, maxima[i]); }
  return m;
}

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  write_mine(wid.x, wid.x * 2u);
  storageBarrier(); // expect: global-barrier
  if (wid.x == 0u) {
    answer = gather(nwg.x);
  }
}
