//! Small PNGs for tool results: a model reads a 768-pixel image for a
//! fraction of the tokens of a full screenshot, and the full file stays on
//! disk for when it needs detail.

/// `png` scaled down (box filter) so its longer side is at most `max_side`;
/// the input itself when it is small enough; `None` when it is not a PNG
/// this can read.
pub fn png_thumbnail(png: &[u8], max_side: u32) -> Option<Vec<u8>> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let (w, h) = (reader.info().width, reader.info().height);
    if w.max(h) <= max_side {
        return Some(png.to_vec());
    }
    // Refuse absurd sizes before allocating: 16k × 16k is past any screen.
    if w > 16_384 || h > 16_384 {
        return None;
    }
    let mut buf = vec![0; reader.output_buffer_size()?];
    let frame = reader.next_frame(&mut buf).ok()?;
    let channels = match frame.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Grayscale => 1,
        png::ColorType::Indexed => return None,
    };
    let scale = f64::from(w.max(h)) / f64::from(max_side);
    let (nw, nh) = (
        ((f64::from(w) / scale).round() as u32).max(1),
        ((f64::from(h) / scale).round() as u32).max(1),
    );
    let stride = frame.line_size;
    let mut out = Vec::with_capacity((nw * nh) as usize * channels);
    for y in 0..nh {
        let (y0, y1) = span(y, nh, h);
        for x in 0..nw {
            let (x0, x1) = span(x, nw, w);
            let n = u64::from((y1 - y0) * (x1 - x0));
            for c in 0..channels {
                let mut sum = 0u64;
                for sy in y0..y1 {
                    let row = sy as usize * stride;
                    for sx in x0..x1 {
                        sum += u64::from(buf[row + sx as usize * channels + c]);
                    }
                }
                out.push((sum / n) as u8);
            }
        }
    }
    let mut encoded = Vec::new();
    let mut enc = png::Encoder::new(&mut encoded, nw, nh);
    enc.set_color(frame.color_type);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header().ok()?.write_image_data(&out).ok()?;
    Some(encoded)
}

/// The source pixels `[from, to)` that output pixel `i` of `n` covers.
fn span(i: u32, n: u32, size: u32) -> (u32, u32) {
    let from = (u64::from(i) * u64::from(size) / u64::from(n)) as u32;
    let to = ((u64::from(i + 1) * u64::from(size)).div_ceil(u64::from(n)) as u32).min(size);
    (from, to.max(from + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(w: u32, h: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let pixels: Vec<u8> = (0..w * h).flat_map(|_| [200u8, 10, 30]).collect();
        enc.write_header()
            .unwrap()
            .write_image_data(&pixels)
            .unwrap();
        out
    }

    #[test]
    fn large_images_shrink_to_the_side_and_keep_their_colour() {
        let big = solid(1280, 800);
        let small = png_thumbnail(&big, 768).unwrap();
        let dec = png::Decoder::new(std::io::Cursor::new(&small));
        let mut r = dec.read_info().unwrap();
        assert_eq!((r.info().width, r.info().height), (768, 480));
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        r.next_frame(&mut buf).unwrap();
        assert_eq!(&buf[..3], &[200, 10, 30]);
        let tiny = solid(100, 50);
        assert_eq!(png_thumbnail(&tiny, 768).unwrap(), tiny);
        assert_eq!(png_thumbnail(b"GIF89a", 768), None);
    }
}
