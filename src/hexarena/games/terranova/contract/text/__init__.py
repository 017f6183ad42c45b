"""What a person or a model reads: ``view`` (the whole text view and the orders' help), ``news``
(since your last turn), and one section per topic: ``citystates``, ``great_people``,
``policies``, ``religion``, ``trade``. Pure formatting of numpy state; nothing here is traced.
"""
