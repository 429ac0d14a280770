//! LLVM's `hash_combine_range` over bytes (`llvm/ADT/Hashing.h`, a CityHash variant), with the
//! fixed seed of builds without ABI-breaking checks.

const SEED: u64 = 0xff51_afd7_ed55_8ccd;
const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;
const K3: u64 = 0xc949_d7c7_509e_6557;

fn u64_at(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(b)
}

fn u32_at(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&s[at..at + 4]);
    u32::from_le_bytes(b) as u64
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

fn hash_16(low: u64, high: u64) -> u64 {
    const MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    let mut a = (low ^ high).wrapping_mul(MUL);
    a ^= a >> 47;
    let mut b = (high ^ a).wrapping_mul(MUL);
    b ^= b >> 47;
    b.wrapping_mul(MUL)
}

fn short_1_to_3(s: &[u8]) -> u64 {
    let len = s.len();
    let y = s[0] as u32 + ((s[len >> 1] as u32) << 8);
    let z = len as u32 + ((s[len - 1] as u32) << 2);
    shift_mix((y as u64).wrapping_mul(K2) ^ (z as u64).wrapping_mul(K3) ^ SEED).wrapping_mul(K2)
}

fn short_4_to_8(s: &[u8]) -> u64 {
    let len = s.len();
    hash_16((len as u64).wrapping_add(u32_at(s, 0) << 3), SEED ^ u32_at(s, len - 4))
}

fn short_9_to_16(s: &[u8]) -> u64 {
    let len = s.len();
    let a = u64_at(s, 0);
    let b = u64_at(s, len - 8);
    hash_16(SEED ^ a, b.wrapping_add(len as u64).rotate_right(len as u32)) ^ b
}

fn short_17_to_32(s: &[u8]) -> u64 {
    let len = s.len() as u64;
    let a = u64_at(s, 0).wrapping_mul(K1);
    let b = u64_at(s, 8);
    let c = u64_at(s, s.len() - 8).wrapping_mul(K2);
    let d = u64_at(s, s.len() - 16).wrapping_mul(K0);
    hash_16(
        a.wrapping_sub(b).rotate_right(43).wrapping_add((c ^ SEED).rotate_right(30)).wrapping_add(d),
        a.wrapping_add((b ^ K3).rotate_right(20)).wrapping_sub(c).wrapping_add(len).wrapping_add(SEED),
    )
}

fn short_33_to_64(s: &[u8]) -> u64 {
    let n = s.len();
    let mut z = u64_at(s, 24);
    let mut a = u64_at(s, 0).wrapping_add((n as u64).wrapping_add(u64_at(s, n - 16)).wrapping_mul(K0));
    let mut b = a.wrapping_add(z).rotate_right(52);
    let mut c = a.rotate_right(37);
    a = a.wrapping_add(u64_at(s, 8));
    c = c.wrapping_add(a.rotate_right(7));
    a = a.wrapping_add(u64_at(s, 16));
    let vf = a.wrapping_add(z);
    let vs = b.wrapping_add(a.rotate_right(31)).wrapping_add(c);
    a = u64_at(s, 16).wrapping_add(u64_at(s, n - 32));
    z = u64_at(s, n - 8);
    b = a.wrapping_add(z).rotate_right(52);
    c = a.rotate_right(37);
    a = a.wrapping_add(u64_at(s, n - 24));
    c = c.wrapping_add(a.rotate_right(7));
    a = a.wrapping_add(u64_at(s, n - 16));
    let wf = a.wrapping_add(z);
    let ws = b.wrapping_add(a.rotate_right(31)).wrapping_add(c);
    let r = shift_mix(vf.wrapping_add(ws).wrapping_mul(K2).wrapping_add(wf.wrapping_add(vs).wrapping_mul(K0)));
    shift_mix((SEED ^ r.wrapping_mul(K0)).wrapping_add(vs)).wrapping_mul(K2)
}

fn hash_short(s: &[u8]) -> u64 {
    match s.len() {
        0 => K2 ^ SEED,
        1..=3 => short_1_to_3(s),
        4..=8 => short_4_to_8(s),
        9..=16 => short_9_to_16(s),
        17..=32 => short_17_to_32(s),
        _ => short_33_to_64(s),
    }
}

/// The 56-byte running state for inputs longer than 64 bytes.
struct State {
    h: [u64; 7],
}

impl State {
    fn new(first: &[u8]) -> State {
        let h4 = SEED.wrapping_mul(K1);
        let h5 = shift_mix(SEED);
        let h = [0, SEED, hash_16(SEED, K1), (SEED ^ K1).rotate_right(49), h4, h5, hash_16(h4, h5)];
        let mut state = State { h };
        state.mix(first);
        state
    }

    fn mix_32(s: &[u8], a: &mut u64, b: &mut u64) {
        *a = a.wrapping_add(u64_at(s, 0));
        let c = u64_at(s, 24);
        *b = b.wrapping_add(*a).wrapping_add(c).rotate_right(21);
        let d = *a;
        *a = a.wrapping_add(u64_at(s, 8)).wrapping_add(u64_at(s, 16));
        *b = b.wrapping_add(a.rotate_right(44)).wrapping_add(d);
        *a = a.wrapping_add(c);
    }

    fn mix(&mut self, s: &[u8]) {
        let h = &mut self.h;
        h[0] = h[0].wrapping_add(h[1]).wrapping_add(h[3]).wrapping_add(u64_at(s, 8)).rotate_right(37).wrapping_mul(K1);
        h[1] = h[1].wrapping_add(h[4]).wrapping_add(u64_at(s, 48)).rotate_right(42).wrapping_mul(K1);
        h[0] ^= h[6];
        h[1] = h[1].wrapping_add(h[3]).wrapping_add(u64_at(s, 40));
        h[2] = h[2].wrapping_add(h[5]).rotate_right(33).wrapping_mul(K1);
        h[3] = h[4].wrapping_mul(K1);
        h[4] = h[0].wrapping_add(h[5]);
        let (mut a, mut b) = (h[3], h[4]);
        Self::mix_32(s, &mut a, &mut b);
        h[3] = a;
        h[4] = b;
        h[5] = h[2].wrapping_add(h[6]);
        h[6] = h[1].wrapping_add(u64_at(s, 16));
        let (mut a, mut b) = (h[5], h[6]);
        Self::mix_32(&s[32..], &mut a, &mut b);
        h[5] = a;
        h[6] = b;
        h.swap(0, 2);
    }

    fn finish(&self, len: u64) -> u64 {
        let h = &self.h;
        hash_16(
            hash_16(h[3], h[5]).wrapping_add(shift_mix(h[1]).wrapping_mul(K1)).wrapping_add(h[2]),
            hash_16(h[4], h[6]).wrapping_add(shift_mix(len).wrapping_mul(K1)).wrapping_add(h[0]),
        )
    }
}

/// `hash_value(StringRef)` of LLVM 22 release builds.
pub fn hash_bytes(s: &[u8]) -> u64 {
    if s.len() <= 64 {
        return hash_short(s);
    }
    let mut state = State::new(&s[..64]);
    let whole = s.len() & !63;
    for chunk in s[64..whole].chunks_exact(64) {
        state.mix(chunk);
    }
    if s.len() % 64 != 0 {
        state.mix(&s[s.len() - 64..]);
    }
    state.finish(s.len() as u64)
}
