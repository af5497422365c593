"""The engine's messages a person reads (a refused text, the model menu's reasons) are marked for the app's
catalogues with N_ (babel.cfg reads the files that use it); the app translates them where it shows them. The engine
itself knows nothing of languages."""


def N_(message: str) -> str:
    """Marks a message for the catalogues, and returns it as it is."""
    return message
