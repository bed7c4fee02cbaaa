#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <cstdint>
namespace nb = nanobind;
struct Counter { uint64_t x = 0; uint64_t next() { return ++x; } };
NB_MODULE(nb_bench, m) {
    m.def("noop", []() {});
    m.def("add", [](int64_t a, int64_t b) { return a + b; });
    nb::class_<Counter>(m, "Counter").def(nb::init<>()).def("next", &Counter::next);
    m.def("fill", [](nb::ndarray<bool, nb::ndim<1>, nb::c_contig, nb::device::cpu> out) {
        bool* p = out.data();
        for (size_t i = 0; i < out.shape(0); i += 7) p[i] = true;
    });
}
