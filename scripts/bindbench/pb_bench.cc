#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <cstdint>
namespace py = pybind11;
struct Counter { uint64_t x = 0; uint64_t next() { return ++x; } };
PYBIND11_MODULE(pb_bench, m) {
    m.def("noop", []() {});
    m.def("add", [](int64_t a, int64_t b) { return a + b; });
    py::class_<Counter>(m, "Counter").def(py::init<>()).def("next", &Counter::next);
    m.def("fill", [](py::array_t<bool, py::array::c_style> out) {  // a mask into a buffer
        auto* p = out.mutable_data();
        for (py::ssize_t i = 0; i < out.size(); i += 7) p[i] = true;
    });
}
