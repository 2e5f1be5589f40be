// Packets of 64-bit elements: T is vec2<u32> (low word, high word), two elements in one
// vec4<u32> load (16 bytes, numpy's layout). The names and their meaning are those of
// packet_vec4.wgsl (read its header); ops/operators.packet_preamble(dt) picks this file for
// uint64, int64 and float64.

alias Packet = vec4<u32>;
const PACKET: u32 = 2u;

fn packet_get(v: Packet, k: u32) -> T {
  return vec2<u32>(v[2u * k], v[2u * k + 1u]);
}

fn packet_set(v: ptr<function, Packet>, k: u32, x: T) {
  (*v)[2u * k] = x.x;
  (*v)[2u * k + 1u] = x.y;
}

fn packet_lift(v: Packet, i: u32) -> A {
  return combine(lift(v.xy, i), lift(v.zw, i + 1u));
}
