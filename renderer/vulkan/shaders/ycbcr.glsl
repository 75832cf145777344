// Y'CbCr to R'G'B' for both compositing paths (texture/ycbcr_conversion.hpp
// computes the constants). Chroma is interpolated here from exact texels, so
// where the chroma sample sits (its siting) is honoured whatever filters the
// device offers for the plane's format and modifier.

// The four chroma texels around luma position `luma_pos` (in luma texels,
// continuous) and their weights. chroma: luma samples per chroma sample
// (xy), the chroma sample's offset from its top-left luma sample (zw).
void chroma_taps(vec2 luma_pos, vec4 chroma, ivec2 size, out ivec2 t0, out ivec2 t1, out vec2 f) {
  vec2 t = (luma_pos - 0.5 - chroma.zw) / chroma.xy;
  vec2 j = floor(t);
  f = t - j;
  t0 = clamp(ivec2(j), ivec2(0), size - 1);
  t1 = clamp(ivec2(j) + 1, ivec2(0), size - 1);
}

float bilinear(float a, float b, float c, float d, vec2 f) {
  return mix(mix(a, b, f.x), mix(c, d, f.x), f.y);
}

// rows: R'G'B'[i] = rows[i] . (Y, Cb, Cr, 1) on the sampled values. Opaque.
vec4 ycbcr_to_rgb(float y, float cb, float cr, vec4 row0, vec4 row1, vec4 row2) {
  vec4 v = vec4(y, cb, cr, 1.0);
  return vec4(clamp(vec3(dot(row0, v), dot(row1, v), dot(row2, v)), 0.0, 1.0), 1.0);
}
