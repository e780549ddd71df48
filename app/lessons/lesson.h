// Moved to app/lessons/model/lesson.h (the lesson's data, below app/core, which holds the open lesson).
// This forward keeps branches written before the move building; include the new path in new code.
#pragma once

#include "app/lessons/model/lesson.h"
