struct GridSync { count: atomic<u32>, generation: atomic<u32> }
@group(0) @binding(0) var<storage, read_write> grid: GridSync;

fn grid_sync(expected: u32) {
  _ = atomicAdd(&grid.count, 1u);
  loop { // expect: global-barrier
    let n = atomicLoad(&grid.count);
    if (n >= expected) { break; }
  }
}

@compute @workgroup_size(1)
fn main(@builtin(num_workgroups) nwg: vec3<u32>) {
  grid_sync(nwg.x);
}
