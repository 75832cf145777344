#version 450
// A YUV texture, one single-plane image per plane: Y, Cb and Cr each in the
// red channel of its view (texture/plane_layout.hpp).
#extension GL_GOOGLE_include_directive : require
#include "ycbcr.glsl"

layout(set = 0, binding = 0) uniform sampler2D luma;
layout(set = 0, binding = 1) uniform sampler2D cb_plane;
layout(set = 0, binding = 2) uniform sampler2D cr_plane;
layout(push_constant) uniform Quad {
  layout(offset = 48) vec4 color;
  layout(offset = 64) vec4 rows[3];
  layout(offset = 112) vec4 chroma;
} quad;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 out_color;

void main() {
  float y = texture(luma, uv).r;
  ivec2 t0, t1;
  vec2 f;
  chroma_taps(uv * vec2(textureSize(luma, 0)), quad.chroma, textureSize(cb_plane, 0), t0, t1, f);
  float cb = bilinear(texelFetch(cb_plane, t0, 0).r, texelFetch(cb_plane, ivec2(t1.x, t0.y), 0).r,
                      texelFetch(cb_plane, ivec2(t0.x, t1.y), 0).r, texelFetch(cb_plane, t1, 0).r, f);
  float cr = bilinear(texelFetch(cr_plane, t0, 0).r, texelFetch(cr_plane, ivec2(t1.x, t0.y), 0).r,
                      texelFetch(cr_plane, ivec2(t0.x, t1.y), 0).r, texelFetch(cr_plane, t1, 0).r, f);
  // Opaque: opacity scales every channel, as for premultiplied texels.
  out_color = ycbcr_to_rgb(y, cb, cr, quad.rows[0], quad.rows[1], quad.rows[2]) * quad.color;
}
