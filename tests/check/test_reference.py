"""The WGSL examples of the reference text (shared/reference), flagged at the right line.

The snippets are transcribed with the declarations they need around them; identifiers are
kept in Spanish as in the text. The line numbers are those of the snippet lines.
"""
from __future__ import annotations

from wgprim.check import check_source

SPIN_LOCK = """\
struct Senal { listo: atomic<u32> }
@group(0) @binding(0) var<storage, read_write> senal: Senal;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
// NO ESCRIBAS ESTO. Cuelga el dispositivo.
if (li == 0u) {
  loop {
    if (atomicLoad(&senal.listo) == 1u) { break; }
  }
}
workgroupBarrier();
}
"""

FLAG_PUBLISH = """\
@group(0) @binding(0) var<storage, read_write> datos: array<u32>;
@group(0) @binding(1) var<storage, read_write> listo: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> salida: array<u32>;
fn calcular() -> u32 { return 42u; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
let i = gid.x;
if (wid.x == 0u) {
// Peligroso: el patron "publicar con una bandera atomica".
datos[i] = calcular();                 // escritura normal
atomicStore(&listo[i], 1u);            // bandera atomica
} else {
// Otro workgroup:
if (atomicLoad(&listo[i]) == 1u) {
  let v = datos[i];                    // NO garantizado que vea el valor
  salida[i] = v;
}
}
}
"""


def rules_by_line(text):
    return {(f.line, f.rule) for f in check_source(text, "reference.wgsl")}


def test_spin_lock_is_a_spin_wait_at_the_loop():
    assert rules_by_line(SPIN_LOCK) == {(7, "spin-wait")}


def test_spin_lock_barrier_after_the_branch_is_uniform():
    assert not any(f.rule == "nonuniform-barrier" for f in check_source(SPIN_LOCK))


def test_flag_publication_flags_the_flag_and_the_unguaranteed_read():
    assert rules_by_line(FLAG_PUBLISH) == {(11, "flag-publish"), (15, "flag-publish")}
