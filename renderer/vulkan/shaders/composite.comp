#version 450
// Compute compositing: one invocation per output pixel of a region; it walks
// the pass's draws that touch the region from the top down, stops where they
// turn opaque, and writes the pixel once.
// GPUs with little fixed-function blending (data-centre Hopper chips) spend
// most of a raster pass in the ROPs; here blending happens in registers.
#extension GL_EXT_shader_image_load_formatted : require
#extension GL_EXT_nonuniform_qualifier : require
#extension GL_GOOGLE_include_directive : require
#include "ycbcr.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

// Format-less, so one shader serves every target format.
layout(set = 0, binding = 0) uniform image2D target;
layout(set = 0, binding = 1) uniform sampler2D textures[64];

struct Op {
  vec4 box;        // x, y, 1/width, 1/height of the destination, in pixels
  vec2 uv_origin;  // texture coordinate at the destination's top-left corner
  vec2 uv_dx;      // change across the destination's width
  vec2 uv_dy;      // ... and down its height
  int texture;     // index into textures, or -1 for a solid colour
  uint flags;
  vec4 color;      // premultiplied colour (solid) or opacity in every channel
  ivec2 rects;     // first clip rectangle, count
  uint chroma;     // YUV: the Cb (low 16 bits) and Cr texture indices
  int conversion;  // YUV: index into conversions
  ivec4 bounds;    // of the clip rectangles: x1, y1, x2, y2
};
const uint kReplaces = 1u;       // no blending: what is below does not show
const uint kStraightAlpha = 2u;  // texels are not premultiplied
const uint kYcbcr = 4u;          // texture is Y; chroma names Cb and Cr
// Coverage past which what lies below moves no channel (of up to 10 bits) by half a step.
const float kOpaque = 1.0 - 0.5 / 1023.0;

layout(std430, set = 0, binding = 2) readonly buffer Ops { Op ops[]; };
layout(std430, set = 0, binding = 3) readonly buffer Rects { ivec4 rects[]; };  // x1, y1, x2, y2
layout(std430, set = 0, binding = 4) readonly buffer List { uint list[]; };
struct Conversion {
  vec4 rows[3];  // R'G'B'[i] = rows[i] . (Y, Cb, Cr, 1)
  vec4 chroma;   // subsampling (xy) and siting (zw) of the chroma samples
};
layout(std430, set = 0, binding = 5) readonly buffer Conversions { Conversion conversions[]; };

layout(push_constant) uniform Region {
  ivec2 origin;
  ivec2 size;
  uint first;  // this region's draws: list[first .. first + count)
  uint count;
  uint direct;  // nonzero: the draws are ops[0 .. count), with no list to read
} region;

// Each read below waits on the one before it: a small damaged region is
// bound by that chain, not by its few pixels, so the common cases skip links.
uint op_at(uint i) { return region.direct != 0u ? i : list[region.first + i]; }

bool covers(uint op, ivec2 p) {
  ivec4 b = ops[op].bounds;
  if (any(lessThan(p, b.xy)) || any(greaterThanEqual(p, b.zw))) return false;
  ivec2 range = ops[op].rects;
  if (range.y == 1) return true;  // the bounds are the rectangle
  for (int i = range.x; i < range.x + range.y; ++i) {
    ivec4 r = rects[i];
    if (all(greaterThanEqual(p, r.xy)) && all(lessThan(p, r.zw))) return true;
  }
  return false;
}

float chroma_at(int t, ivec2 t0, ivec2 t1, vec2 f) {
  return bilinear(texelFetch(textures[nonuniformEXT(t)], t0, 0).r,
                  texelFetch(textures[nonuniformEXT(t)], ivec2(t1.x, t0.y), 0).r,
                  texelFetch(textures[nonuniformEXT(t)], ivec2(t0.x, t1.y), 0).r,
                  texelFetch(textures[nonuniformEXT(t)], t1, 0).r, f);
}

// The RGB of a YUV op at texture coordinate `uv`, given its luma there.
vec4 ycbcr(uint op, float y, vec2 uv) {
  int cb = int(ops[op].chroma & 0xffffu), cr = int(ops[op].chroma >> 16);
  Conversion c = conversions[ops[op].conversion];
  ivec2 t0, t1;
  vec2 f;
  vec2 luma_size = vec2(textureSize(textures[nonuniformEXT(ops[op].texture)], 0));
  chroma_taps(uv * luma_size, c.chroma, textureSize(textures[nonuniformEXT(cb)], 0), t0, t1, f);
  return ycbcr_to_rgb(y, chroma_at(cb, t0, t1, f), chroma_at(cr, t0, t1, f), c.rows[0], c.rows[1],
                      c.rows[2]);
}

vec4 source(uint op, ivec2 p) {
  int t = ops[op].texture;
  if (t < 0) return ops[op].color;
  vec4 box = ops[op].box;
  vec2 f = (vec2(p) + 0.5 - box.xy) * box.zw;
  vec2 uv = ops[op].uv_origin + f.x * ops[op].uv_dx + f.y * ops[op].uv_dy;
  // Texels are premultiplied: opacity scales every channel.
  // Neighbouring pixels may be at different draws (each starts at its own
  // topmost opaque one): the index is not uniform across the workgroup.
  vec4 texel = textureLod(textures[nonuniformEXT(t)], uv, 0.0);
  uint flags = ops[op].flags;
  if ((flags & kYcbcr) != 0u) texel = ycbcr(op, texel.r, uv);
  if ((flags & kStraightAlpha) != 0u) texel.rgb *= texel.a;
  return texel * ops[op].color;
}

// The draws that touch this workgroup's tile, as bits over the region's list:
// most pixels of a busy desktop lie under a few of its windows, not all.
const uint kMaskWords = 32;  // culls regions of up to 1024 draws
shared uint tile_mask[kMaskWords];

bool touches_tile(uint op, ivec2 lo, ivec2 hi) {
  ivec4 b = ops[op].bounds;
  if (!(all(lessThan(b.xy, hi)) && all(lessThan(lo, b.zw)))) return false;
  ivec2 range = ops[op].rects;
  if (range.y == 1) return true;
  for (int i = range.x; i < range.x + range.y; ++i) {
    ivec4 r = rects[i];
    if (all(lessThan(r.xy, hi)) && all(lessThan(lo, r.zw))) return true;
  }
  return false;
}

void main() {
  const bool culled = region.count <= kMaskWords * 32u;
  if (culled) {
    uint lane = gl_LocalInvocationIndex;
    if (lane < kMaskWords) tile_mask[lane] = 0u;
    barrier();
    ivec2 lo = region.origin + ivec2(gl_WorkGroupID.xy * gl_WorkGroupSize.xy);
    ivec2 hi = lo + ivec2(gl_WorkGroupSize.xy);
    for (uint i = lane; i < region.count; i += gl_WorkGroupSize.x * gl_WorkGroupSize.y)
      if (touches_tile(op_at(i), lo, hi)) atomicOr(tile_mask[i >> 5], 1u << (i & 31u));
    barrier();
  }

  ivec2 local = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(local, region.size))) return;
  ivec2 p = region.origin + local;

  // Front to back: `acc` is what the draws above show (premultiplied), and
  // once it is opaque nothing below can show, so a window's opaque interior
  // costs one texture read however many windows lie under it.
  vec4 acc = vec4(0.0);
  bool touched = false;
  for (int i = int(region.count) - 1; i >= 0; --i) {
    if (culled) {
      // Skip to the previous draw that touches the tile.
      uint bits = tile_mask[uint(i) >> 5] & (0xffffffffu >> (31u - (uint(i) & 31u)));
      if (bits == 0u) {
        i = int(uint(i) & ~31u);  // the loop's --i moves to the word below
        continue;
      }
      i = int((uint(i) & ~31u) + uint(findMSB(bits)));
    }
    uint op = op_at(uint(i));
    if (!covers(op, p)) continue;
    touched = true;
    acc += (1.0 - acc.a) * source(op, p);
    // A draw without blending hides what is below whatever its alpha.
    if ((ops[op].flags & kReplaces) != 0u || acc.a >= kOpaque) {
      imageStore(target, p, acc);
      return;
    }
  }
  if (!touched) return;  // not drawn: the pixel keeps what it had
  imageStore(target, p, acc + (1.0 - acc.a) * imageLoad(target, p));
}
