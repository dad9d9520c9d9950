"""The task most perception tests render (a module with its own name: ``conftest`` is ambiguous
when several test directories are collected together)."""

TASK = "b1k/loading_the_car"
INSTRUCTION = ("put the digital camera in the container, then load the container and the tennis racket "
               "into the car and close it")
