#pragma once
#include <sys/eventfd.h>
