"""The words: the message catalogues and the locale's numbers (i18n), the prose of each page (prose), the words for
each field of a model's configuration (architecture), the lesson's chapters and their titles (chapters). They
import nothing else of the app."""
