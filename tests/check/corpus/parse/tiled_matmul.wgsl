// Tiled matrix multiply: C = A * B, 16x16 tiles staged in workgroup memory.
struct Dims { m: u32, n: u32, k: u32 }

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const T = 16u;
var<workgroup> tile_a: array<array<f32, T>, T>;
var<workgroup> tile_b: array<array<f32, T>, T>;

fn load_or_zero(buf: ptr<storage, array<f32>, read>, row: u32, col: u32, cols: u32, rows: u32) -> f32 {
  if (row < rows && col < cols) {
    return (*buf)[row * cols + col];
  }
  return 0.0;
}

@compute @workgroup_size(T, T)
fn matmul(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let row = wid.y * T + lid.y;
  let col = wid.x * T + lid.x;
  var sum = 0.0;
  let tiles = (dims.k + T - 1u) / T;
  for (var t = 0u; t < tiles; t++) {
    tile_a[lid.y][lid.x] = load_or_zero(&a, row, t * T + lid.x, dims.k, dims.m);
    tile_b[lid.y][lid.x] = load_or_zero(&b, t * T + lid.y, col, dims.n, dims.k);
    workgroupBarrier();
    for (var i = 0u; i < T; i++) {
      sum = fma(tile_a[lid.y][i], tile_b[i][lid.x], sum);
    }
    workgroupBarrier();
  }
  if (row < dims.m && col < dims.n) {
    c[row * dims.n + col] = sum;
  }
}
