#pragma once
// Wrappers for C calls Swift cannot make: variadic *_ctl requests and function-like macros.
// One function per request; nothing else belongs here.
#include <opus.h>
