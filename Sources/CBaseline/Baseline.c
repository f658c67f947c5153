#include "CBaseline.h"
