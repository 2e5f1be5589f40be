// Packets: the 16-byte units (8 for f16) in which the flat reductions and scans load and
// store elements of T. This file: T of 4 or 2 bytes, four elements in a vec4<T>.
// packet_pairs.wgsl has the same names for 64-bit T (vec2<u32>): two elements in a
// vec4<u32>. ops/operators.packet_preamble(dt) picks one; it goes after the operator
// preamble (T, A, lift, combine), and kernels written against these names take every dtype:
//   alias Packet                          one load: elements PACKET * i .. PACKET * i + PACKET - 1
//   const PACKET: u32                     elements per packet
//   fn packet_get(v, k) -> T              element k of v
//   fn packet_set(&v, k, x: T)            element k of v set to x
//   fn packet_lift(v, i) -> A             lift of each element (indices i, i + 1, ...) combined

alias Packet = vec4<T>;
const PACKET: u32 = 4u;

fn packet_get(v: Packet, k: u32) -> T {
  return v[k];
}

fn packet_set(v: ptr<function, Packet>, k: u32, x: T) {
  (*v)[k] = x;
}

fn packet_lift(v: Packet, i: u32) -> A {
  return combine(combine(lift(v.x, i), lift(v.y, i + 1u)), combine(lift(v.z, i + 2u), lift(v.w, i + 3u)));
}
