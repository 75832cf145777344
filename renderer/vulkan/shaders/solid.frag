#version 450
layout(push_constant) uniform Quad {
  layout(offset = 48) vec4 color;
} quad;
layout(location = 0) in vec2 uv;  // unused; matches quad.vert
layout(location = 0) out vec4 out_color;

void main() { out_color = quad.color; }
