#pragma once
#include <srtp2/srtp.h>
