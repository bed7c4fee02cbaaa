"""What a seat may be shown of a position, and what it is worth: the observation tensor and its
layout, the text rendering, the scores, and the re-dealing of hidden information. Functions
over ``fort_env.game``'s state arrays; they never change the state."""
