enable f16;
requires readonly_and_readwrite_storage_textures;
diagnostic(off, derivative_uniformity);

/* Block comments /* nest */ in WGSL. */
alias Mat = mat4x4<f32>;
alias Grid = array<array<vec4<f32>, 4>, 4>;
const TILE: u32 = 16u;
const HALF = 0.5h;
const HEX_FLOAT = 0x1.8p1f;
const SCI = 1e-3;
const MASK = 0xFFu;
const NEG = -12i;
override WG_X: u32 = 64u;
@id(7) override scale: f32;
const_assert TILE * 2u <= 64u;

struct Particle {
  @align(16) position: vec3<f32>,
  @size(16) mass: f32,
  velocity: vec3<f32>,
}

struct Uniforms { view: Mat, count: u32, _pad: vec3<u32> }

@group(0) @binding(0) var<uniform> uniforms: Uniforms;
@group(0) @binding(1) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(2) var<storage> readonly_grid: Grid;
@group(1) @binding(0) var img: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(1) var src_tex: texture_2d<f32>;
var<private> seed: u32 = 1u;
var<workgroup> tile: array<vec4<f16>, TILE>;

fn rand() -> u32 {
  seed = seed * 1664525u + 1013904223u;
  return seed;
}

fn swap(a: ptr<function, f32>, b: ptr<function, f32>) {
  let t = *a;
  *a = *b;
  *b = t;
}

fn length_sq(v: vec3<f32>) -> f32 { return dot(v, v); }

@must_use
fn pick(c: bool, a: u32, b: u32) -> u32 { return select(b, a, c); }

@compute @workgroup_size(WG_X, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,) {
  let i = gid.x;
  if (i >= arrayLength(&particles)) { return; }
  var p = particles[i];
  p.velocity += vec3<f32>(0.0, -9.8, 0.0) * 0.016;
  p.position = p.position + p.velocity * 0.016;
  var m: Mat = uniforms.view;
  m[0][1] = 2.0;
  var x = 1.0;
  var y = 2.0;
  swap(&x, &y);
  let e = uniforms.count > 2u && uniforms.count < 10u;
  let g = (i < 3u) || (i > 7u);
  let h = i<<2u >> 1u;
  var bits = 0u;
  bits |= 1u << 3u;
  bits >>= 1u;
  bits <<= 2u;
  bits ^= 0x0fu;
  bits &= ~0u;
  bits %= 7u;
  let w = bitcast<vec4<u32>>(vec4<f32>(1.0));
  let coords = vec2<i32>(i32(i % 8u), i32(i / 8u));
  let texel = textureLoad(src_tex, coords, 0);
  textureStore(img, coords, texel * f32(pick(e || g, h, w.x)));
  tile[li % TILE] = vec4<f16>(f16(x), f16(y), HALF, 1.0h);
  _ = rand();
  _ = length_sq(p.velocity);
  particles[i] = p;
  particles[i].mass *= scale;
}
