// The shared CPU loops' activation formulas in the tensor's own precision, used by the
// activation ops (activation.cpp) and the fused elementwise loop (fused_elementwise.cpp), so
// that a fused chain gives the numbers of the ops it replaces. Backward reads the output y:
//   relu: dx = dy * (y > 0);  tanh: dx = dy * (1 - y^2);  sigmoid: dx = dy * y * (1 - y).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/op_params.h"

namespace ablate::kernels::cpu {

template <class T> inline T relu_value(T x) { return x > T(0) ? x : T(0); }
template <class T> inline T tanh_value(T x) { return std::tanh(x); }
template <class T> inline T sigmoid_value(T x) { return T(1) / (T(1) + std::exp(-x)); }
template <class T> inline T relu_grad(T y, T dy) { return y > T(0) ? dy : T(0); }
template <class T> inline T tanh_grad(T y, T dy) { return dy * (T(1) - y * y); }
template <class T> inline T sigmoid_grad(T y, T dy) { return dy * y * (T(1) - y); }

// Calls loop(f) with f(x) the formula of activation `a`: the switch stays outside the loop,
// which compiles once per formula.
template <class T, class Loop> void for_activation(Activation a, Loop&& loop) {
  switch (a) {
    case Activation::relu: loop([](T x) { return relu_value(x); }); break;
    case Activation::tanh: loop([](T x) { return tanh_value(x); }); break;
    case Activation::sigmoid: loop([](T x) { return sigmoid_value(x); }); break;
    case Activation::gelu:
    case Activation::gelu_tanh:  // run as gelu_forward by Backend::activation_forward
      throw std::invalid_argument(std::string("activation ") + activation_name(a) + ": expected relu, tanh or sigmoid");
  }
}

// Likewise with f(y, dy) the gradient's formula.
template <class T, class Loop> void for_activation_grad(Activation a, Loop&& loop) {
  switch (a) {
    case Activation::relu: loop([](T y, T dy) { return relu_grad(y, dy); }); break;
    case Activation::tanh: loop([](T y, T dy) { return tanh_grad(y, dy); }); break;
    case Activation::sigmoid: loop([](T y, T dy) { return sigmoid_grad(y, dy); }); break;
    case Activation::gelu:
    case Activation::gelu_tanh:  // run as gelu_backward by Backend::activation_backward
      throw std::invalid_argument(std::string("activation ") + activation_name(a) + ": expected relu, tanh or sigmoid");
  }
}

}  // namespace ablate::kernels::cpu
