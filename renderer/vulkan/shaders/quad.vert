#version 450
// One quad per draw, no vertex buffer: the corner comes from gl_VertexIndex
// (triangle strip) and the push constants place it and its texture window.
layout(push_constant) uniform Quad {
  vec4 dst;        // x0, y0, x1, y1 in normalized device coordinates
  vec2 uv_origin;  // texture coordinate at the destination's top-left corner
  vec2 uv_dx;      // change of the texture coordinate across the destination's width
  vec2 uv_dy;      // ... and down its height
  vec2 unused;
  vec4 color;      // premultiplied colour (rects) or opacity in every channel (textures)
} quad;

layout(location = 0) out vec2 uv;

void main() {
  vec2 corner = vec2(gl_VertexIndex & 1, gl_VertexIndex >> 1);
  uv = quad.uv_origin + corner.x * quad.uv_dx + corner.y * quad.uv_dy;
  gl_Position = vec4(mix(quad.dst.xy, quad.dst.zw, corner), 0.0, 1.0);
}
