#include "CVoiceShims.h"
