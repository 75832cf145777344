#version 450
// Compute compositing: one invocation per output pixel of a region; it walks
// the pass's draws that touch the region, in order, and writes the pixel once.
// GPUs with little fixed-function blending (data-centre Hopper chips) spend
// most of a raster pass in the ROPs; here blending happens in registers.
#extension GL_EXT_shader_image_load_formatted : require

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
  ivec2 unused;
};
const uint kReplaces = 1u;  // no blending: what is below does not show

layout(std430, set = 0, binding = 2) readonly buffer Ops { Op ops[]; };
layout(std430, set = 0, binding = 3) readonly buffer Rects { ivec4 rects[]; };  // x1, y1, x2, y2
layout(std430, set = 0, binding = 4) readonly buffer List { uint list[]; };

layout(push_constant) uniform Region {
  ivec2 origin;
  ivec2 size;
  uint first;  // this region's draws: list[first .. first + count)
  uint count;
} region;

bool covers(uint op, ivec2 p) {
  ivec2 range = ops[op].rects;
  for (int i = range.x; i < range.x + range.y; ++i) {
    ivec4 r = rects[i];
    if (all(greaterThanEqual(p, r.xy)) && all(lessThan(p, r.zw))) return true;
  }
  return false;
}

vec4 source(uint op, ivec2 p) {
  int t = ops[op].texture;
  if (t < 0) return ops[op].color;
  vec4 box = ops[op].box;
  vec2 f = (vec2(p) + 0.5 - box.xy) * box.zw;
  vec2 uv = ops[op].uv_origin + f.x * ops[op].uv_dx + f.y * ops[op].uv_dy;
  // Texels are premultiplied: opacity scales every channel.
  return textureLod(textures[t], uv, 0.0) * ops[op].color;
}

void main() {
  ivec2 local = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(local, region.size))) return;
  ivec2 p = region.origin + local;

  // Draws under the topmost one that replaces this pixel cannot show.
  int start = -1;
  bool touched = false;
  for (int i = int(region.count) - 1; i >= 0; --i) {
    uint op = list[region.first + uint(i)];
    if (!covers(op, p)) continue;
    touched = true;
    if ((ops[op].flags & kReplaces) != 0u) {
      start = i;
      break;
    }
  }
  if (!touched) return;  // not drawn: the pixel keeps what it had
  vec4 dst = start >= 0 ? vec4(0.0) : imageLoad(target, p);
  for (int i = max(start, 0); i < int(region.count); ++i) {
    uint op = list[region.first + uint(i)];
    if (!covers(op, p)) continue;
    vec4 src = source(op, p);
    dst = (ops[op].flags & kReplaces) != 0u ? src : src + dst * (1.0 - src.a);
  }
  imageStore(target, p, dst);
}
