// Walking a linked list stored in a read_write buffer: each step advances the cursor.
const END = 0xffffffffu;
@group(0) @binding(0) var<storage, read_write> next: array<u32>;
@group(0) @binding(1) var<storage, read_write> lengths: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  var node = gid.x;
  var length = 0u;
  loop {
    if (node == END) { break; }
    length += 1u;
    node = next[node];
  }
  lengths[gid.x] = length;
}
