// Weak no-op stand-ins for the binding functions the other parts define (bind_common.h): the
// module links and imports while a part is unfinished; the linker takes a part's own (strong)
// definition as soon as its *_bind.cc exists. Python checks what is there with hasattr(_core, f).
#include "bind_common.h"

__attribute__((weak)) void bind_rules(pybind11::module_&) {}
__attribute__((weak)) void bind_mask(pybind11::module_&) {}
__attribute__((weak)) void bind_views(pybind11::module_&) {}
__attribute__((weak)) void bind_batch(pybind11::module_&) {}
__attribute__((weak)) void bind_playout(pybind11::module_&) {}
__attribute__((weak)) void bind_search(pybind11::module_&) {}
__attribute__((weak)) void load_game_rules(fort::Game&, fort_bind::GameKwargs&) {}
__attribute__((weak)) void load_game_mask(fort::Game&, fort_bind::GameKwargs&) {}
__attribute__((weak)) void load_game_views(fort::Game&, fort_bind::GameKwargs&) {}
