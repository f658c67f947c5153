#pragma once
#include <opus.h>
