/**
 * Self-written English text the tokenizer learns its pieces from. Written for this project (no
 * third-party text), kept in the source so the vocabulary is identical on every machine.
 */
export const TOKENIZER_CORPUS = `
Hello! How can I help you today? I am a small assistant that runs on your own computer.
You can ask me a question, and I will try to answer it as well as I can. Sometimes I will be wrong,
so please check anything important before you rely on it.

The morning was cold and clear. A thin layer of frost covered the grass in the park, and the
people who walked their dogs there wore heavy coats and scarves. By noon the sun had warmed the
air, the frost had gone, and children were playing on the swings while their parents talked
about the weather, the price of bread, and the new library that the town was going to build.

The library would have three floors. The first floor was for children, with low shelves, soft
chairs and a corner where someone would read stories aloud every Saturday. The second floor held
books about history, science, art and music. The third floor had quiet rooms where students could
study, and a small room with computers that anyone could use for free.

To make a simple bread, mix four cups of flour with a spoon of salt and a spoon of yeast. Add two
cups of warm water and stir until the dough comes together. Cover the bowl and let it rest for
about two hours, until it has doubled in size. Shape the dough into a round loaf, place it on a
tray, and bake it in a hot oven for thirty to forty minutes. Let the bread cool before you cut it.

What is the difference between weather and climate? Weather is what happens in the sky on a
given day: rain, wind, sunshine or snow. Climate describes the usual pattern of weather in a
place over many years. A single hot day does not tell you much about the climate, but a long
record of temperatures can show whether a region is becoming warmer or cooler over time.

A computer program is a list of instructions. The computer follows them one at a time, very
quickly, and does exactly what they say, even when that is not what the programmer meant. Good
programs are written so that other people can read them: they use clear names, small functions,
and tests that check the program still works after every change. When a test fails, the
programmer reads the error message, finds the cause, and fixes it.

Here is a short list of things to pack for a trip:
1. A warm jacket and a rain coat.
2. Comfortable shoes for walking.
3. A water bottle, a map, and some food for the road.
4. A charger for your phone.
5. The tickets, your passport, and a little money in cash.

The river runs from the mountains in the north to the sea in the south. In spring, when the snow
melts, the water rises and moves fast; in late summer it is slow and shallow, and you can see the
stones on the bottom. Fishermen sit on the bank in the early evening, and birds fly low over the
water to catch insects. An old stone bridge crosses the river near the centre of the town.

Thank you for your message. I understand that the delivery was late and that the box was
damaged when it arrived. I am sorry for the trouble. We will send a new item today, and you do not
need to return the damaged one. Please let me know if there is anything else I can do for you.

Q: How many days are there in a week?
A: There are seven days in a week: Monday, Tuesday, Wednesday, Thursday, Friday, Saturday and Sunday.
Q: How many months are there in a year?
A: There are twelve months: January, February, March, April, May, June, July, August, September,
October, November and December.
Q: What is two plus two?
A: Two plus two is four. Ten times ten is one hundred, and one thousand is ten times one hundred.

She opened the window and listened. Somewhere down the street a dog was barking, a car door
closed, and a radio played an old song that she remembered from school. She smiled, made a cup of
tea, and sat down at the table to write a letter to her brother, who lived far away by the sea.
"Dear Tom," she wrote, "it has been a long time since we last spoke. I hope you are well."

When you learn a new language, start with the words you use every day: hello, goodbye, please,
thank you, yes, no, water, food, left, right, today, tomorrow. Practice a little every day rather
than a lot once a week. Listen to people speak, read simple stories, and do not be afraid to make
mistakes, because mistakes are how everyone learns.

The system is ready. The model has been loaded and the server is listening for requests. Each
request contains a list of messages, and the answer is returned as a stream of small pieces of
text. If the client closes the connection, the server stops working on that answer at once.

Rules for the garden: water the plants in the morning or in the evening, not in the heat of the
day. Pull out weeds while they are small. Give tomatoes a stick to climb, and pick them when they
are red and soft. Keep a corner of the garden wild, with flowers for the bees and butterflies.

Numbers and symbols appear in text as well: 0 1 2 3 4 5 6 7 8 9, 10%, 25 degrees, 3.14, 1,000,
$20, 7:30 pm, 2024-01-15, (a + b) * c = d, [one, two, three], {"key": "value"}, path/to/file.txt,
user@example.com, #hashtag, 50/50, A-Z, e.g. and i.e., "quoted words", and it's, don't, can't, I'm, we're.

I think the best answer depends on what you need. If you want something quick and simple, choose
the first option. If you have more time and want a result that lasts, the second option is better.
Either way, it is a good idea to start small, see what works, and then improve it step by step.
`;
