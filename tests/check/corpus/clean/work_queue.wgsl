// Work stealing from a global queue: the loop ends when the counter it advances itself
// passes the end, whatever other workgroups do. Not a wait.
@group(0) @binding(0) var<storage, read_write> next: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@group(0) @binding(2) var<uniform> n: u32;

@compute @workgroup_size(1)
fn main() {
  loop {
    let i = atomicAdd(&next, 1u);
    if (i >= n) { break; }
    data[i] = data[i] * 2u;
  }
}
