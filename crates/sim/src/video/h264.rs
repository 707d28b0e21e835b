//! A tiny H.264 Constrained Baseline encoder for the simulator's result videos.
//!
//! The picture is a horizontal colour gradient with a progress bar that fills over the video's
//! length. It costs almost nothing to encode: the top macroblock row and the bar row are I_PCM
//! (raw samples), every other macroblock of a key frame is Intra 16x16 vertical prediction with no
//! residual (it repeats the row above), and the frames between key frames are P_Skip except for the
//! bar's newly filled columns, which are I_PCM again.

use super::bits::{BitWriter, nal};

/// Sample values of one 16x16 macroblock in 4:2:0: 256 luma, then 64 Cb, then 64 Cr.
type Pcm = [u8; 384];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    /// Colour seed: tints the gradient so that different tasks look different.
    pub hue: f32,
}

impl Picture {
    pub fn mbs_wide(&self) -> u32 {
        self.width.div_ceil(16)
    }

    pub fn mbs_high(&self) -> u32 {
        self.height.div_ceil(16)
    }

    fn bar_row(&self) -> u32 {
        (self.mbs_high() * 3 / 4).max(1)
    }

    /// Background colour of pixel column `x`: (Y, Cb, Cr) in video range.
    fn background(&self, x: u32) -> (u8, u8, u8) {
        let t = x as f32 / self.width.max(1) as f32;
        let angle = self.hue + t * 2.0;
        let y = 50.0 + 90.0 * t;
        (y as u8, (128.0 + 45.0 * angle.cos()) as u8, (128.0 + 45.0 * angle.sin()) as u8)
    }

    /// A macroblock of the top row or of the bar row; `filled` draws the bar in it.
    fn pcm(&self, mb_x: u32, filled: bool) -> Pcm {
        let mut out = [0u8; 384];
        for row in 0..16 {
            for col in 0..16 {
                let bar = filled && (3..12).contains(&row);
                let (y, _, _) = self.background(mb_x * 16 + col);
                out[(row * 16 + col) as usize] = if bar { 230 } else { y };
            }
        }
        for row in 0..8 {
            for col in 0..8 {
                let bar = filled && (2..6).contains(&row);
                let (_, cb, cr) = self.background(mb_x * 16 + col * 2);
                let i = (row * 8 + col) as usize;
                out[256 + i] = if bar { 128 } else { cb };
                out[320 + i] = if bar { 128 } else { cr };
            }
        }
        out
    }
}

/// Sequence parameter set (Constrained Baseline, level 4.0, POC type 2, with VUI timing).
pub fn sps(p: &Picture, fps: u32) -> Vec<u8> {
    let mut w = BitWriter::default();
    w.u(8, 66); // profile_idc: Baseline
    w.u(8, 0b1100_0000); // constraint_set0 and set1: Constrained Baseline
    w.u(8, 40); // level_idc 4.0: up to 8192 macroblocks, enough for 1920x1080 either way up
    w.ue(0); // seq_parameter_set_id
    w.ue(0); // log2_max_frame_num_minus4: frame_num is 4 bits
    w.ue(2); // pic_order_cnt_type 2: output order is decode order
    w.ue(1); // max_num_ref_frames
    w.u(1, 0); // gaps_in_frame_num_value_allowed_flag
    w.ue(p.mbs_wide() - 1);
    w.ue(p.mbs_high() - 1);
    w.u(1, 1); // frame_mbs_only_flag
    w.u(1, 1); // direct_8x8_inference_flag
    let (crop_right, crop_bottom) = ((p.mbs_wide() * 16 - p.width) / 2, (p.mbs_high() * 16 - p.height) / 2);
    let crop = crop_right > 0 || crop_bottom > 0;
    w.u(1, u32::from(crop));
    if crop {
        w.ue(0);
        w.ue(crop_right);
        w.ue(0);
        w.ue(crop_bottom);
    }
    w.u(1, 1); // vui_parameters_present_flag
    w.u(1, 0); // aspect_ratio_info_present_flag
    w.u(1, 0); // overscan_info_present_flag
    w.u(1, 0); // video_signal_type_present_flag
    w.u(1, 0); // chroma_loc_info_present_flag
    w.u(1, 1); // timing_info_present_flag
    w.u(32, 1); // num_units_in_tick
    w.u(32, fps * 2); // time_scale: two ticks per frame
    w.u(1, 1); // fixed_frame_rate_flag
    w.u(1, 0); // nal_hrd_parameters_present_flag
    w.u(1, 0); // vcl_hrd_parameters_present_flag
    w.u(1, 0); // pic_struct_present_flag
    w.u(1, 1); // bitstream_restriction_flag
    w.u(1, 1); // motion_vectors_over_pic_boundaries_flag
    w.ue(0); // max_bytes_per_pic_denom
    w.ue(0); // max_bits_per_mb_denom
    w.ue(16); // log2_max_mv_length_horizontal
    w.ue(16); // log2_max_mv_length_vertical
    w.ue(0); // max_num_reorder_frames: decoders may show each frame at once
    w.ue(1); // max_dec_frame_buffering
    nal(3, 7, &w.finish())
}

/// Picture parameter set: CAVLC, deblocking control present (we switch it off per slice).
pub fn pps() -> Vec<u8> {
    let mut w = BitWriter::default();
    w.ue(0); // pic_parameter_set_id
    w.ue(0); // seq_parameter_set_id
    w.u(1, 0); // entropy_coding_mode_flag: CAVLC
    w.u(1, 0); // bottom_field_pic_order_in_frame_present_flag
    w.ue(0); // num_slice_groups_minus1
    w.ue(0); // num_ref_idx_l0_default_active_minus1
    w.ue(0); // num_ref_idx_l1_default_active_minus1
    w.u(1, 0); // weighted_pred_flag
    w.u(2, 0); // weighted_bipred_idc
    w.se(0); // pic_init_qp_minus26
    w.se(0); // pic_init_qs_minus26
    w.se(0); // chroma_qp_index_offset
    w.u(1, 1); // deblocking_filter_control_present_flag
    w.u(1, 0); // constrained_intra_pred_flag
    w.u(1, 0); // redundant_pic_cnt_present_flag
    nal(3, 8, &w.finish())
}

const MB_TYPE_I_PCM_IN_I: u32 = 25;
const MB_TYPE_I_PCM_IN_P: u32 = 5 + 25;
/// I_16x16_0_0_0: vertical prediction, no coded luma AC, no coded chroma.
const MB_TYPE_I16_VERTICAL: u32 = 1;
const CHROMA_PRED_VERTICAL: u32 = 2;

fn pcm_macroblock(w: &mut BitWriter, mb_type: u32, samples: &Pcm) {
    w.ue(mb_type);
    w.align_zero();
    w.bytes(samples);
}

/// Key frame (IDR) showing the bar filled up to `filled` columns.
pub fn idr(p: &Picture, idr_pic_id: u32, filled: u32) -> Vec<u8> {
    let mut w = BitWriter::default();
    w.ue(0); // first_mb_in_slice
    w.ue(7); // slice_type: I, all slices of the picture
    w.ue(0); // pic_parameter_set_id
    w.u(4, 0); // frame_num
    w.ue(idr_pic_id);
    w.u(1, 0); // no_output_of_prior_pics_flag
    w.u(1, 0); // long_term_reference_flag
    w.se(0); // slice_qp_delta
    w.ue(1); // disable_deblocking_filter_idc: off, so predictions stay exact
    let (wide, high, bar) = (p.mbs_wide(), p.mbs_high(), p.bar_row());
    let is_pcm = |y: u32| y == 0 || y == bar;
    for y in 0..high {
        for x in 0..wide {
            if is_pcm(y) {
                pcm_macroblock(&mut w, MB_TYPE_I_PCM_IN_I, &p.pcm(x, y == bar && x < filled));
                continue;
            }
            w.ue(MB_TYPE_I16_VERTICAL);
            w.ue(CHROMA_PRED_VERTICAL);
            w.se(0); // mb_qp_delta
            // Intra16x16DCLevel with no coefficients: coeff_token(0, 0) in the table chosen by nC,
            // the mean of the coefficient counts above and to the left (I_PCM counts as 16).
            let above = 16 * u32::from(is_pcm(y - 1));
            let n_c = if x == 0 { above } else { above.div_ceil(2) };
            match n_c {
                0..=1 => w.u(1, 1),
                2..=3 => w.u(2, 0b11),
                4..=7 => w.u(4, 0b1111),
                _ => w.u(6, 0b000011),
            }
        }
    }
    nal(3, 5, &w.finish())
}

/// A frame that repeats the previous one except for the bar columns in `from..to`.
pub fn p_frame(p: &Picture, frame_num: u32, from: u32, to: u32) -> Vec<u8> {
    let mut w = BitWriter::default();
    w.ue(0); // first_mb_in_slice
    w.ue(5); // slice_type: P, all slices of the picture
    w.ue(0); // pic_parameter_set_id
    w.u(4, frame_num % 16);
    w.u(1, 0); // num_ref_idx_active_override_flag
    w.u(1, 0); // ref_pic_list_modification_flag_l0
    w.u(1, 0); // adaptive_ref_pic_marking_mode_flag
    w.se(0); // slice_qp_delta
    w.ue(1); // disable_deblocking_filter_idc
    let wide = p.mbs_wide();
    let total = wide * p.mbs_high();
    let mut next = 0;
    for x in from..to.min(wide) {
        let addr = p.bar_row() * wide + x;
        w.ue(addr - next); // mb_skip_run
        pcm_macroblock(&mut w, MB_TYPE_I_PCM_IN_P, &p.pcm(x, true));
        next = addr + 1;
    }
    if next < total {
        w.ue(total - next);
    }
    nal(2, 1, &w.finish())
}
