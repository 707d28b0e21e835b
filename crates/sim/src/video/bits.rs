//! A bit writer for H.264 syntax elements (u(n), ue(v), se(v)) and NAL unit framing.

#[derive(Debug, Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    current: u8,
    used: u8,
}

impl BitWriter {
    pub fn bit(&mut self, on: bool) {
        self.current = (self.current << 1) | u8::from(on);
        self.used += 1;
        if self.used == 8 {
            self.bytes.push(self.current);
            self.current = 0;
            self.used = 0;
        }
    }

    /// u(n): the low `n` bits of `value`, most significant first.
    pub fn u(&mut self, n: u32, value: u32) {
        for i in (0..n).rev() {
            self.bit((value >> i) & 1 == 1);
        }
    }

    /// ue(v): Exp-Golomb code of an unsigned value.
    pub fn ue(&mut self, value: u32) {
        let x = u64::from(value) + 1;
        let len = 64 - x.leading_zeros();
        for _ in 0..len - 1 {
            self.bit(false);
        }
        for i in (0..len).rev() {
            self.bit((x >> i) & 1 == 1);
        }
    }

    /// se(v): Exp-Golomb code of a signed value.
    pub fn se(&mut self, value: i32) {
        let mapped = if value > 0 { 2 * value as u32 - 1 } else { 2 * value.unsigned_abs() };
        self.ue(mapped);
    }

    pub fn is_aligned(&self) -> bool {
        self.used == 0
    }

    /// Zero bits up to the next byte boundary (pcm_alignment_zero_bit).
    pub fn align_zero(&mut self) {
        while !self.is_aligned() {
            self.bit(false);
        }
    }

    /// Whole bytes; the writer must be aligned.
    pub fn bytes(&mut self, data: &[u8]) {
        debug_assert!(self.is_aligned());
        self.bytes.extend_from_slice(data);
    }

    /// rbsp_trailing_bits(), then the finished RBSP.
    pub fn finish(mut self) -> Vec<u8> {
        self.bit(true);
        self.align_zero();
        self.bytes
    }
}

/// A NAL unit: header byte, then the RBSP with emulation prevention bytes inserted.
pub fn nal(ref_idc: u8, unit_type: u8, rbsp: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rbsp.len() + rbsp.len() / 64 + 1);
    out.push((ref_idc << 5) | unit_type);
    let mut zeros = 0;
    for &b in rbsp {
        if zeros == 2 && b <= 3 {
            out.push(3);
            zeros = 0;
        }
        out.push(b);
        zeros = if b == 0 { zeros + 1 } else { 0 };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits_of(f: impl FnOnce(&mut BitWriter)) -> String {
        let mut w = BitWriter::default();
        f(&mut w);
        let used = w.used;
        let mut s: String = w.bytes.iter().map(|b| format!("{b:08b}")).collect();
        if used > 0 {
            s.push_str(&format!("{:0width$b}", w.current, width = used as usize));
        }
        s
    }

    #[test]
    fn exp_golomb_codes() {
        let cases = [(0, "1"), (1, "010"), (2, "011"), (3, "00100"), (7, "0001000"), (30, "000011111")];
        for (v, want) in cases {
            assert_eq!(bits_of(|w| w.ue(v)), want, "ue({v})");
        }
        let cases = [(0, "1"), (1, "010"), (-1, "011"), (2, "00100"), (-2, "00101")];
        for (v, want) in cases {
            assert_eq!(bits_of(|w| w.se(v)), want, "se({v})");
        }
    }

    #[test]
    fn emulation_prevention() {
        assert_eq!(nal(3, 5, &[0, 0, 1, 0, 0, 0, 0, 4]), vec![0x65, 0, 0, 3, 1, 0, 0, 3, 0, 0, 4]);
        assert_eq!(nal(0, 1, &[0, 0, 4]), vec![0x01, 0, 0, 4]);
    }
}
