#version 450
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(push_constant) uniform Quad {
  layout(offset = 48) vec4 color;
} quad;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 out_color;

void main() {
  // Texels are premultiplied: opacity scales every channel.
  out_color = texture(tex, uv) * quad.color;
}
